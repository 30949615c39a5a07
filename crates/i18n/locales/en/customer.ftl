# The customer display (issue #30): the second window facing the customer, in the
# customer's language (record 0132). Formatted in Rust (src-tauri/src/customer/).

customer-welcome = Welcome
customer-welcome-line = We'll be with you in a moment.
customer-item = Item
customer-qty = Qty
customer-amount = Amount
customer-rate = Taxed at { $rate }
customer-rate-tax = tax { $tax }
customer-discount = Discount
customer-total = Total
customer-due = To pay
customer-paid-so-far = Paid
customer-change = Change
customer-tender-cash = Cash
customer-tender-card = Card
customer-tender-checking = checking…
customer-present-card = Present your card on the reader
customer-thank-you = Thank you
customer-window-title = Customer display
customer-display-open = Customer display
customer-display-show = Open the customer display
customer-display-language = Language on the display
customer-display-store-language = The store's language
customer-display-at-start = Open it when PayDesk starts
