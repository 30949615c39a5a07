# Finding items on the sale screen: a search field and category tabs (record 0133).
search-label = Find an item
search-placeholder = Find by name or code
search-tabs-label = Categories
search-all = All
search-none = No item matches “{ $query }”.
search-error-empty = Type part of a name or a code to search.
search-error-long = A search has at most { $max } characters.
search-error-control = A search cannot contain control characters.
search-error-category = That category does not exist.
search-category-field = Category
search-category-none = (none)
