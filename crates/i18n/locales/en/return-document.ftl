# The return document (a qualified return invoice in Japan): what a return gave back (crates/receipt/src/return_doc, the store's language).
return-document-title = RETURN
return-document-subtitle = (return invoice)
return-document-number = No. { $number }
return-document-sale = Original sale { $date }
return-document-sale-no = Original receipt { $number }
# A sale of a replaced register, restored here (record 0144).
return-document-from-register = From register { $name }
return-document-lines = Returned
return-document-quantity = { $name } x{ $quantity }
return-document-total = Refunded
# An exchange's return (record 0123): not all of it went back to the customer.
return-document-total-exchange = Value returned
return-document-taxable = Taxable at { $rate }
return-document-tax = Tax included
return-document-exempt = Tax exempt
return-document-card = Back to the card
return-document-cash = Back in cash
return-document-store = Back as store tender
return-document-exchange = Applied to sale { $number }
receipt-exchange-credit = Exchange { $number }
