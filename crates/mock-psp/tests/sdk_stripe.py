"""Drives the mock PSP with the official Stripe Python SDK (argv[1] = base URL)."""
import json
import sys
import threading
import urllib.request

import stripe

base = sys.argv[1]
client = stripe.StripeClient("sk_test_a", base_addresses={"api": base}, max_network_retries=6)
v1 = client.v1


def admin(path, data=None):
    req = urllib.request.Request(base + path, data=(urllib.parse.urlencode(data).encode() if data is not None else None))
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


import urllib.parse  # noqa: E402

pi = v1.payment_intents.create(params={
    "amount": 1234, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True,
    "capture_method": "manual", "metadata": {"checkout_key": "sdk-1"},
}, options={"idempotency_key": "sdk-create-1"})
assert pi.status == "requires_capture", pi
assert pi.amount_capturable == 1234
again = v1.payment_intents.create(params={
    "amount": 1234, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True,
    "capture_method": "manual", "metadata": {"checkout_key": "sdk-1"},
}, options={"idempotency_key": "sdk-create-1"})
assert again.id == pi.id

got = v1.payment_intents.retrieve(pi.id)
assert got.id == pi.id and got.metadata["checkout_key"] == "sdk-1"

cap = v1.payment_intents.capture(pi.id, params={"amount_to_capture": 1000})
assert cap.status == "succeeded" and cap.amount_received == 1000, cap

ref = v1.refunds.create(params={"payment_intent": pi.id, "amount": 400})
assert ref.amount == 400 and ref.status == "succeeded"
assert v1.refunds.retrieve(ref.id).amount == 400

found = v1.payment_intents.search(params={"query": "metadata['checkout_key']:'sdk-1'"})
assert len(found.data) == 1 and found.data[0].id == pi.id

listed = v1.payment_intents.list(params={"limit": 10})
assert any(p.id == pi.id for p in listed.data)
events = v1.events.list(params={"limit": 10})
assert {e.type for e in events.data} >= {"payment_intent.amount_capturable_updated", "payment_intent.succeeded", "charge.refunded"}

try:
    v1.payment_intents.create(params={"amount": 500, "currency": "usd", "payment_method": "pm_card_chargeDeclined", "confirm": True})
    raise AssertionError("decline expected")
except stripe.CardError as e:
    assert e.code == "card_declined", e.code
    assert e.http_status == 402

try:
    stripe.StripeClient("sk_test_wrong", base_addresses={"api": base}).v1.payment_intents.list()
    raise AssertionError("401 expected")
except stripe.AuthenticationError:
    pass

# Automatic retry after a 409: a first request with key K runs slowly; the SDK call
# with the same key gets 409 idempotency_key_in_use, retries by itself, and ends with
# the replayed result of the first.
admin("/__admin/faults/script", {"path": "/v1/payment_intents", "fault": "slow", "count": "1", "slow_ms": "2500"})
params = {"amount": 999, "currency": "usd", "payment_method": "pm_card_visa", "confirm": True}
result = {}
t = threading.Thread(target=lambda: result.setdefault("first", v1.payment_intents.create(params=params, options={"idempotency_key": "sdk-409"})))
t.start()
while admin("/__admin/stats")["faults"]["slow"] < 1:
    pass
second = v1.payment_intents.create(params=params, options={"idempotency_key": "sdk-409"})
t.join()
assert second.id == result["first"].id
stats = admin("/__admin/stats")
assert stats["conflicts"] >= 1, stats
assert stats["replays"] >= 2, stats
assert len(v1.payment_intents.search(params={"query": "amount:999"}).data) == 1

# Card readers (Stripe Terminal, server-driven): location, reader, a card_present intent
# processed on the reader, the customer played by the test helper, decline then another
# card on the SAME intent, cancel_action, and the reads.
loc = v1.terminal.locations.create(params={
    "display_name": "SDK store", "address": {"line1": "1 Main St", "city": "Springfield", "country": "US"},
})
assert loc.id.startswith("tml_") and loc.display_name == "SDK store", loc
assert v1.terminal.locations.retrieve(loc.id).address.country == "US"
rdr = v1.terminal.readers.create(params={"registration_code": "simulated-wpe", "label": "SDK till", "location": loc.id})
assert rdr.device_type == "simulated_wisepos_e" and rdr.status == "online" and rdr.action is None, rdr
assert any(r.id == rdr.id for r in v1.terminal.readers.list(params={"location": loc.id, "limit": 5}).data)
assert v1.terminal.readers.retrieve(rdr.id).label == "SDK till"
cp = v1.payment_intents.create(params={"amount": 2000, "currency": "usd", "payment_method_types": ["card_present"]})
assert cp.status == "requires_payment_method", cp
shown = v1.terminal.readers.set_reader_display(rdr.id, params={"type": "cart", "cart": {
    "currency": "usd", "line_items": [{"description": "Tea", "amount": 900, "quantity": 2}], "tax": 200, "total": 2000}})
assert shown.action.type == "set_reader_display" and shown.action.set_reader_display.cart.total == 2000, shown
got = v1.terminal.readers.process_payment_intent(rdr.id, params={"payment_intent": cp.id})
assert got.action.status == "in_progress" and got.action.process_payment_intent.payment_intent == cp.id, got
got = v1.test_helpers.terminal.readers.present_payment_method(rdr.id, params={"type": "card_present", "card_present": {"number": "4000000000000002"}})
assert got.action.status == "failed" and got.action.failure_code == "card_declined", got
assert v1.payment_intents.retrieve(cp.id).status == "requires_payment_method"
v1.terminal.readers.process_payment_intent(rdr.id, params={"payment_intent": cp.id})
got = v1.test_helpers.terminal.readers.present_payment_method(rdr.id, params={"type": "card_present", "card_present": {"number": "4242424242424242"}})
assert got.action.status == "succeeded", got
paid = v1.payment_intents.retrieve(cp.id)
assert paid.status == "succeeded" and paid.amount_received == 2000, paid
card = v1.charges.retrieve(paid.latest_charge).payment_method_details.card_present
assert card.brand == "visa" and card.last4 == "4242" and card.receipt.dedicated_file_name, card
try:
    v1.terminal.readers.process_payment_intent(rdr.id, params={"payment_intent": cp.id})
    raise AssertionError("intent_invalid_state expected")
except stripe.InvalidRequestError as e:
    assert e.code == "intent_invalid_state", e.code
cp2 = v1.payment_intents.create(params={"amount": 700, "currency": "usd", "payment_method_types": ["card_present"]})
v1.terminal.readers.process_payment_intent(rdr.id, params={"payment_intent": cp2.id})
cleared = v1.terminal.readers.cancel_action(rdr.id)
assert cleared.action is None, cleared
assert v1.payment_intents.retrieve(cp2.id).status == "requires_payment_method"
types = [e.type for e in v1.events.list(params={"limit": 20}).data]
assert "terminal.reader.action_succeeded" in types and "terminal.reader.action_failed" in types, types

print("sdk ok", json.dumps({"conflicts": stats["conflicts"], "replays": stats["replays"]}))
