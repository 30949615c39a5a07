# A paid sale's receipt on screen and its Print / Reprint button.
receipt-screen-title = Receipt
receipt-screen-print = Print receipt
receipt-screen-reprint = Reprint
receipt-screen-printing = Printing…
receipt-screen-of-sale = Receipt of sale { $id }
receipt-screen-none = No receipt: { $why }
