# Card-present payments on a reader (issue #27): the checkout panel, Settings → Card reader.

## The state in words (src-tauri/src/reader/mod.rs)
reader-paid = Paid { $amount } — { $card }
reader-authorized = Authorized { $amount } — { $card }
reader-waiting = Present the card on { $reader } — { $amount }. Waiting for the card…
reader-declined = Declined — not charged ({ $reason }). Try another card, or take cash.
reader-customer-canceled = The customer canceled on the reader — not charged. Try another card, or take cash.
reader-action-canceled = Canceled on the reader — not charged. Try another card, or take cash.
reader-not-started = The reader did not start — not charged ({ $reason }). Try again, or take cash.
reader-intent-canceled = Not charged, and never will be: this card payment is closed.
reader-pending = Pending: we don't know yet whether { $amount } was charged ({ $because }). Do not take another payment; check the status. Key { $key }
reader-pending-timeout = the reader timed out
reader-pending-lost = the answer was lost
reader-pending-connection = the connection dropped during authorization
reader-pending-stuck = the reader has been waiting a long time
reader-pending-cannot-read = the payment processor cannot be reached now
reader-pending-processing = the payment is still processing
reader-busy = { $reader } is busy with something else — nothing started. Try again.
reader-unavailable-psp = Card reader unavailable: the payment processor cannot be reached. Take cash or another tender.
reader-unavailable-offline = { $reader } is offline — nothing started. Take cash or another tender.

## Refusals and input
reader-error-keyed-not-test-mode = Keyed test cards work only in test mode (the embedded PSP or a test key). Take the card on the reader.
reader-error-not-test-mode = The simulated customer exists only in test mode (the embedded PSP or a test key).
reader-error-needs-embedded = This simulated reader fault needs the embedded PSP.
reader-error-unknown = No reader { $reader } is registered on this register. Add it in Settings → Card reader.
input-reader-id = Choose a card reader.
input-reader-code = Type the reader's registration code (1-100 characters).
input-reader-label = Type a label for the reader (1-100 characters).
reader-location-default = PayDesk store

## Settings → Card reader
reader-status-online = online
reader-status-offline = offline
reader-status-unknown = status unknown
settings-reader-title = Card reader
settings-reader-code = Registration code
settings-reader-label = Label
settings-reader-register = Register reader
settings-reader-none = No card reader registered yet.
settings-reader-location = Store location: { $location }
settings-reader-hint = Test mode: the code simulated-wpe registers a simulated reader.
settings-reader-done = Reader { $label } registered.

## The checkout
reader-check = Check status
reader-cancel = Cancel on reader
reader-try-again = Try another card
reader-cash = Take cash instead
reader-sim-title = Simulate the customer (test mode)
reader-sim-approved = Approved card
reader-sim-declined = Declined card
reader-sim-insufficient = Insufficient funds
reader-sim-cancels = Next card: customer cancels
reader-sim-timeout = Next card: reader timeout that still charges
reader-armed-customer-cancels = On the next card, the customer cancels on the reader.
reader-armed-timeout = On the next card, the reader times out but still takes the card.

## The reader panel's heading, and its lines (ui/reader.js, ui/tender.js)
reader-head-paid = Paid
reader-head-authorized = Authorized
reader-head-waiting = Waiting for the customer's card…
reader-head-declined = Declined — try another card
reader-head-not-charged = Not charged
reader-head-pending = Pending — checking with the processor
reader-head-busy = The reader is busy
reader-head-unavailable = Card reader unavailable
reader-on = { $reader } · { $amount }
reader-key = Checkout key { $key }
reader-present-again = Present again
reader-option = Card reader — { $label }
reader-tender-label = Card on reader
reader-sending = Sending to the reader…
reader-working = Asking the reader…
reader-pending-tender = A card payment of { $amount } is on the reader; its outcome is not known yet. Check its status before taking another payment.
settings-reader-demo = Register the simulated reader
settings-reader-demo-label = Front counter (simulated)
reader-tender-state = On the card reader
