# The Payments screen (F2): the day's payments and one payment's details.
payments-col-time = Time
payments-col-amount = Amount
payments-col-state = State
payments-col-attempts = Attempts
payments-empty = No payments yet today.
payments-row-label = Payment of { $amount } at { $time }, { $state }
payment-checkout-key = Checkout key
payment-psp-ref = Processor ref
payment-refunded = Refunded
payment-timeline = Timeline
refund-amount = Refund amount (up to { $amount })
refund-partial = Refund this amount
refund-full = Refund all
refund-help = A refund is sent once: the buttons wait for the processor's answer, and a refund still being confirmed must finish before another.
refund-nothing-left = Nothing left to refund.
timeline-label = Payment timeline: { $events }
timeline-then = {", then "}
