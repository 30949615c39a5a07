# Shifts: the X and Z reports as printed (crates/receipt, in the store's language) and
# the Shift tab (ui/shift.js, in the screen's language).
shift-report-x-title = X REPORT
shift-report-z-title = Z REPORT No. { $number }
shift-report-register = Register
shift-report-opened = Opened
shift-report-closed = Closed
shift-report-opened-by = Opened by
shift-report-closed-by = Closed by
shift-report-approved-by = Approved by
shift-report-printed = Printed
shift-report-float = Float
shift-report-cash-sales = Cash sales
shift-report-cash-cancels = Cash returned at cancels
shift-report-cash-refunds = Cash refunds
shift-report-paid-in = Paid in
shift-report-paid-out = Paid out
shift-report-expected = Expected in drawer
shift-report-counted = Counted
shift-report-over = Over
shift-report-short = Short
shift-report-even = Over / short
shift-report-tenders = Settled tenders
shift-report-sales = Sales
shift-report-checkpoint = Audit checkpoint
shift-report-not-closed = Shift still open: not a closing report
