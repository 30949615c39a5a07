# A paid sale's receipt on screen and its Print / Reprint button.
receipt-title = Receipt
receipt-print = Print receipt
receipt-reprint = Reprint
receipt-printing = Printing…
receipt-of-sale = Receipt of sale { $id }
receipt-none = No receipt: { $why }
