# The checkout panel's live progress and outcome, as Rust writes them. The engine's own
# reasons (a decline's, a network error's) are passed through in English.
progress-attempt = Attempt { $n }: sending to the processor with key { $key }…
progress-backoff = Waiting { $seconds } s, then retrying with the same key.
progress-replayed = Already charged — replayed: the processor returned its first answer, so there is no second charge.
progress-background = Still no definitive answer ({ $reason }). The register keeps checking in the background with the same key.
progress-offline = Processor unreachable: { $amount } accepted offline. It will be forwarded with the same key when the processor is back.
progress-forward-declined = An offline payment ({ $key }…) was DECLINED when forwarded. Collect payment another way.
progress-forwarded = Offline payment { $key }… forwarded: { $state }.
progress-resolved = { $state } ({ $via }).
progress-via-replay = confirmed by the processor's replay
progress-via-search = confirmed by searching the processor's records
progress-via-event = confirmed by a processor event
progress-via-answer = the processor answered
progress-refund = Refund { $state }.
outcome-declined-default = the card was declined
outcome-failed-default = The processor refused the request.
outcome-unknown-default = The processor has not answered definitively yet.
outcome-note-replayed = The card was charged once. After { $attempts } attempts with the same key the processor replayed its first answer, so there is no second charge.
outcome-note-attempts = Charged once, after { $attempts } attempts with the same key.
receipt-status-offline = APPROVED OFFLINE
receipt-status-approved = APPROVED
receipt-status-authorized = AUTHORIZED
receipt-status-declined = DECLINED
receipt-status-failed = NOT CHARGED
receipt-status-pending = PENDING
