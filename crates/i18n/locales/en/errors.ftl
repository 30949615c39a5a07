# What a refused command tells the cashier (AppError's message; its code stays English).
error-unknown-item = No item has the code “{ $code }”. Check the code or pick the item from the catalog.
error-label-price-differs = The label prices { $sku } at { $label } (the catalog says { $catalog }): scan the label to ring it up at its price, then change the quantity on the line it made.
error-label-weight = { $sku } has a weight label ({ $grams } g): scan it in the scan field to ring it up by its weight.
error-cart-locked = The cart is locked while its payment is open. Finish or resolve the payment first.
error-cart-empty = The cart is empty. Scan or pick an item first.
error-no-checkout = There is no payment on screen to continue.
error-sale-changed = The sale changed since this screen was drawn ({ $seen } { $seen ->
        [one] payment
       *[other] payments
    } shown, { $now } now). Nothing was taken: check the amount due and try again.
error-tender-in-flight = A payment is still running on this register. Wait for its answer; nothing else was taken.
error-engine-invalid-input = That input was not accepted: { $detail }.
error-unknown-payment = That payment is not in this register's records.
error-refund-exceeds = That is more than can be refunded. At most { $amount } is left on this payment.
error-refund-in-progress = A refund of this payment is still being confirmed. Wait for it before refunding again.
error-wrong-state = This payment cannot be { $attempted ->
        [capture] captured
        [cancel] canceled
       *[refund] refunded
    } now: it is { $state }.
error-previous-outcome-unknown = We don't know yet whether the last card was charged. Charging again could charge the customer twice. Wait for the register to find out, or give a reason to continue anyway.
error-already-paid = This payment already went through. No new payment is needed.
error-later-payment = A later payment was already started after this one and ended { $state }. Try again from that payment.
error-offline-refused = The payment processor cannot be reached and this payment cannot be accepted offline ({ $reason }). { $detail }
error-psp-config = The payment processor refused the register's settings ({ $detail }). Check Settings → PSP URL and key.
error-psp-rejected = The payment processor rejected this request: { $detail }.
error-alarm = Stop: something is wrong and needs a manager. { $detail }
error-ledger = The register could not save this ({ $detail }). Nothing was charged twice; try again.
error-tender-exceeds-due = That is more than this sale still needs. At most { $amount } is open.
error-tender-unknown-outstanding = We don't know yet whether the last card of this sale was charged. Another payment now could charge the customer twice. Wait, or give a reason to continue anyway.
error-sale-complete = This sale is already paid in full.
error-sale-canceled = This sale was canceled.
error-sale-refund-exceeds = That is more than can be refunded on this sale.
error-unresolved = We don't know yet whether payment { $key } went through ({ $detail }). Do not charge again: the register checks with the same key.
error-backoffice-unreachable = The back office cannot be reached: { $why }. Check the address and the network; sales go on meanwhile.
error-backoffice-refused = The back office refused: { $why }
error-tax-locked = The tax of this sale is fixed: a payment was already taken. Eat-in/take-out and discounts cannot change now.
error-printer-not-set = No receipt printer is set. Enter its address (host:port) on the Catalog tab (F5), under Store → Receipt printer.
error-item-published = “{ $sku }” is managed by the back office: change it there, and this register gets it with the next sync.
error-tax-published = The tax setup (price mode, rounding, registration number, rates) is managed by the back office: change it there.
error-pin-published = { $name }’s PIN is managed by the back office: change it there, and every register of the store gets it with its next sync.
# Restore from a replaced register (design §9.15): each refusal of the back office by its code.
error-not-paired = This register is not paired with a back office. Pair it first under Settings → Back office.
error-restore-unknown = The back office knows no replaced register “{ $from }” in this store. Check the name, or enter its id.
error-restore-ambiguous = More than one replaced register of this store is named “{ $from }”. Enter the id of the one to restore from (the back office's dashboard shows it).
error-restore-in-service = “{ $from }” is still in service. The store's owner marks it replaced at the back office before its history can be restored here.
error-restore-itself = A register cannot restore its own history. Enter the register this one replaces.
error-tender-type-unknown = There is no tender type { $id }. Reopen the payment screen.
error-tender-type-inactive = { $name } is switched off in Settings: take another payment.
error-tender-type-name-taken = A tender type named { $name } exists already.
error-staff-published = { $name } is managed by the back office: change them there, and every register of the store gets it with its next sync.
error-staff-unknown = There is no staff member named { $name }.
error-staff-last-owner = { $name } is the store's last active owner. Make someone else an owner first.
error-staff-retired = { $name } is retired: nothing about them changes any more.
error-staff-name-retired = { $name } was retired. A new member needs another name.
error-staff-same-role = { $name }’s role is { $role } already.
