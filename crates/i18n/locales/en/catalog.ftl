# The Catalog tab (F5): items, CSV import and export, the store's settings, the printer.
catalog-title = Catalog
catalog-add = Add item
catalog-edit = Edit
catalog-save = Save item
catalog-col-sku = SKU
catalog-col-barcode = Barcode
catalog-col-name = Name
catalog-col-price = Price
catalog-col-class = Tax class
catalog-col-active = Active
catalog-yes = yes
catalog-no = no
catalog-name-en = Name (English)
catalog-name-ja = Name (Japanese)
catalog-price = Price ({ $currency })
catalog-class-standard = standard ({ $rate })
catalog-class-reduced = reduced ({ $rate } take-out)
catalog-price-kind = Pricing
catalog-unit = Sold
catalog-price-kind-fixed = fixed price
catalog-price-kind-open = typed at the register (open price)
catalog-price-kind-department = department key (typed at the register)
catalog-unit-piece = by the piece
catalog-unit-kilogram = by weight, price per kg
catalog-unit-hundred_grams = by weight, price per 100 g
catalog-class-exempt = exempt
catalog-saved = Saved { $sku }.
catalog-import-title = Import CSV
catalog-import-file = CSV file
catalog-import-paste = or paste the CSV text
catalog-import-button = Import
catalog-import-line = line { $line }, { $field }: { $message }
catalog-export-button = Export CSV
catalog-export-label = Exported CSV
catalog-export-done = { $rows } items saved to { $path }
catalog-file-too-big = That file is larger than 4 MB: nothing was imported.
store-title = Store
store-name = Store name
store-address = Address
store-phone = Phone
store-currency = Currency and locale (set with the store)
store-prices = Prices
store-prices-inclusive = include tax
store-prices-exclusive = exclude tax
store-registration = Invoice registration number (T + 13 digits)
store-rounding = Tax rounding
store-rounding-down = down
store-rounding-half_up = half up
store-rounding-up = up
store-header = Receipt header
store-footer = Receipt footer
store-time-zone = Time zone of receipts and screens (e.g. America/Los_Angeles)
store-save = Save store
store-saved = Store settings saved.
store-printer = Receipt printer (host:port, e.g. 192.168.1.50:9100)
store-printer-save = Save printer
store-printer-saved = Printer saved: { $printer }
store-printer-none = Printer removed.

# Printing and catalog results, formatted in Rust.
print-sent = Receipt sent to the printer.
print-sent-reprint = Reprint sent to the printer.
print-unreachable = The receipt printer at { $target } did not print ({ $why }). The sale is paid and not affected. Check that the printer is on and connected, then press Print again: nothing came out, so that copy is the original.
print-unreachable-reprint = The receipt printer at { $target } did not print ({ $why }). The sale is paid and not affected. Check that the printer is on and connected, then press Print again: that copy is marked REPRINT.
catalog-item-not-saved = The item was not saved: { $count ->
    [one] one problem.
   *[other] { $count } problems.
}
catalog-imported = Imported { $rows } rows: { $changed } items added or changed.
catalog-import-rejected = Nothing was imported: the file has { $count ->
    [one] one problem
   *[other] { $count } problems
}. Fix every line listed and import it again.
catalog-published = Back office
catalog-published-help = This item is managed by the back office: change it there; this register gets it with the next sync.
