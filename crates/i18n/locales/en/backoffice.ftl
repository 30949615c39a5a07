# Settings → Back office (design §9.12, §9.15): pairing, the status bar's sync pill,
# restoring a replaced register's history and reading it.
backoffice-title = Back office
backoffice-url = Back office address
backoffice-code = Pairing code (from the store owner)
backoffice-pair = Pair
backoffice-pairing = Pairing…
backoffice-paired = Paired as “{ $name }” of store { $store } at { $url }.
backoffice-pill-unreachable = Back office unreachable · { $queued } queued
backoffice-pill-error = Back office sync failed · { $queued } queued
backoffice-pill-sending = Back office: { $queued } queued
backoffice-pill-synced = Back office: synced { $ago }
backoffice-pill-never = Back office: not synced yet
backoffice-ago-s = { $n } s ago
backoffice-ago-min = { $n } min ago
backoffice-ago-h = { $n } h ago
backoffice-restore-title = Restore history from a replaced register
backoffice-restore-help = On a register that replaces a broken one: the old register's payments, as the back office holds them, are copied here to look up. They are never sent again or counted twice.
backoffice-restore-from = Replaced register (name or id)
backoffice-restore = Restore
backoffice-restoring = Restoring…
backoffice-history-title = Restored history
backoffice-history-none = Nothing restored on this register.
backoffice-source-complete = complete
backoffice-source-partial = incomplete: restore again for the rest
backoffice-source-rows = { $held } of { $total } rows
backoffice-source-when = restored { $when }
backoffice-source-show = Show payments
backoffice-source-name = “{ $name }”
backoffice-payments-of = Payments of “{ $name }”, newest first
backoffice-payments-none = No payments in this history.
backoffice-col-key = Checkout key
backoffice-col-amount = Amount
backoffice-col-state = Last state
backoffice-col-time = Time
backoffice-state-none = No state sent
backoffice-older = Older payments
# What a restore did (formatted in Rust: the count chooses the words).
backoffice-restored = { $count ->
    [0] Nothing new from “{ $name }”.
    [one] Restored one row from “{ $name }”.
   *[other] Restored { $count } rows from “{ $name }”.
}
backoffice-restored-nothing = Nothing new from “{ $name }”: all { $total } rows of its history were already here.
backoffice-restored-complete = Its history is complete here: { $total } rows.
backoffice-restored-partial = { $held } of its { $total } rows are here: restore again for the rest.
