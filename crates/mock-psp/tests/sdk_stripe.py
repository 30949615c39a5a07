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
print("sdk ok", json.dumps({"conflicts": stats["conflicts"], "replays": stats["replays"]}))
