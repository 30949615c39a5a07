# The ryōshūsho (領収書): the formal receipt a register prints on a customer's request, apart
# from the sale's receipt (crates/receipt/src/ryoshusho, in the store's language).
ryoshusho-title = RECEIPT (Ryoshusho)
ryoshusho-reprint = REISSUED
ryoshusho-number = No. { $number }
ryoshusho-addressee = Received from: { $name }
ryoshusho-addressee-blank = Received from: ____________
ryoshusho-amount = { $amount }
ryoshusho-description = For: { $text }
ryoshusho-received = The amount above has been received.
ryoshusho-breakdown = Paid by
ryoshusho-cash = Cash
ryoshusho-card = Credit card
ryoshusho-store = Other tender
ryoshusho-taxable = Taxable at { $rate }
ryoshusho-tax-included = Consumption tax included
ryoshusho-exempt = Tax exempt
ryoshusho-stamp = Revenue stamp
ryoshusho-stamp-duty = Stamp duty { $duty }
ryoshusho-replaces = Replaces No. { $number } (after a return)
ryoshusho-receipt-no = Sale receipt No. { $number }
# The description the form is filled with, in the store's language (the document's).
ryoshusho-default-description = Goods
