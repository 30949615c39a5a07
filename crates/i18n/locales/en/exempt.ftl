# A tax-exempt sale and its reason (record 0135): a resale certificate, a diplomat's card,
# a non-profit's exemption number. A manager's, or with a manager's approval.
exempt-button = Tax exempt…
exempt-button-title = Sell this sale without tax, for a reason the customer shows (a manager's approval)
exempt-title = Tax-exempt sale
exempt-help = Record why this sale bears no tax: the certificate or card and its number. A manager approves it.
exempt-reason = Reason (3 to 200 characters)
exempt-save = Make tax exempt
exempt-clear = Charge tax again
exempt-cancel = Cancel
exempt-tax = Tax
exempt-badge = Tax exempt: { $reason }
exempt-done-set = This sale is tax exempt: { $total } due.
exempt-done-clear = This sale is taxed again: { $total } due.
exempt-error-not-allowed = This store does not take tax-exempt sales (its settings).
exempt-error-tendered = Something was already paid on this sale: its tax cannot change now.
exempt-error-paid = This sale is paid: its tax cannot change.
exempt-error-reason = Give the reason in 3 to 200 characters, without control characters.
