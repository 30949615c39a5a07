# The printed receipt's fixed words (crates/receipt). A receipt is in the store's
# language, whatever the screen's.
receipt-title = RECEIPT
receipt-reprint = ** REPRINT **
receipt-registration = Reg. No.
receipt-tel = Tel
receipt-receipt-no = No.
receipt-eat-in = Eat in
receipt-line-discount = Discount
receipt-subtotal = Subtotal
receipt-sale-discount = Sale discount
receipt-total-label = TOTAL
receipt-taxable = Taxable { $rate }
receipt-taxable-excl = Taxable { $rate } excl. tax
receipt-tax-included = incl. tax
receipt-tax = Tax
receipt-exempt = Tax exempt
receipt-reduced-mark = *
receipt-reduced-legend = * reduced tax rate
receipt-cash = Cash
receipt-card-tender = Card
receipt-card-aid = AID
receipt-card-arc = ARC
receipt-card-auth-code = Auth code
receipt-change = Change
receipt-store-tender = Other tender
receipt-slip = Slip no.
receipt-no-change = No change given
# Who rang the sale and at which register (record 0127).
receipt-cashier = Cashier:
receipt-register = Register
# A tax-exempt sale and why (record 0135).
receipt-exempt-reason = Tax exempt: { $reason }
