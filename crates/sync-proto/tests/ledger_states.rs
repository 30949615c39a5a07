//! The wire's payment and refund states are exactly the ledger's, by name and by serde
//! form, so a register can send every state it has and nothing else.
use paydesk_sync_proto::{PaymentState, RefundState};

#[test]
fn every_ledger_payment_state_has_its_wire_twin_and_back() {
    let ledger: Vec<&str> = paydesk_domain::PaymentState::ALL.iter().map(|s| s.as_str()).collect();
    let wire: Vec<&str> = PaymentState::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(ledger, wire);
    for s in paydesk_domain::PaymentState::ALL {
        let json = serde_json::to_string(&s).unwrap();
        let w: PaymentState = serde_json::from_str(&json).unwrap();
        assert_eq!(w.as_str(), s.as_str());
    }
}

#[test]
fn every_ledger_refund_state_has_its_wire_twin_and_back() {
    let ledger: Vec<&str> = paydesk_domain::RefundState::ALL.iter().map(|s| s.as_str()).collect();
    let wire: Vec<&str> = RefundState::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(ledger, wire);
    for s in paydesk_domain::RefundState::ALL {
        let w: RefundState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(w.as_str(), s.as_str());
    }
}

#[test]
fn the_wire_transition_tables_are_the_ledgers() {
    for s in paydesk_domain::PaymentState::ALL {
        let w = PaymentState::parse(s.as_str()).unwrap();
        let ledger: Vec<&str> = s.allowed_next().iter().map(|n| n.as_str()).collect();
        let wire: Vec<&str> = w.allowed_next().iter().map(|n| n.as_str()).collect();
        assert_eq!(ledger, wire, "from {s}");
    }
    for s in paydesk_domain::RefundState::ALL {
        let w = RefundState::parse(s.as_str()).unwrap();
        let ledger: Vec<&str> = s.allowed_next().iter().map(|n| n.as_str()).collect();
        let wire: Vec<&str> = w.allowed_next().iter().map(|n| n.as_str()).collect();
        assert_eq!(ledger, wire, "from {s}");
    }
}

#[test]
fn a_state_can_become_itself_and_what_the_table_reaches_never_an_earlier_one() {
    use PaymentState::*;
    assert!(Created.can_become(Created) && Created.can_become(Captured) && Created.can_become(Refunded));
    assert!(Captured.can_become(PartiallyRefunded), "through refunding");
    assert!(Refunding.can_become(Captured), "a failed refund returns");
    for (from, to) in [(Captured, Authorizing), (Captured, Created), (Refunded, Captured), (Failed, Captured), (Canceled, Authorizing), (PartiallyRefunded, Authorized)] {
        assert!(!from.can_become(to), "{from:?} -> {to:?}");
    }
    assert!(!RefundState::Succeeded.can_become(RefundState::Pending));
    assert!(!RefundState::Failed.can_become(RefundState::Succeeded));
    assert!(RefundState::Pending.can_become(RefundState::Succeeded));
}

/// A reader payment's facts (issue 27): created, on the reader, then paid or abandoned;
/// never back to a keyed payment's send or the offline queue. (`failed` is reachable only
/// through a held authorization whose capture fails: a decline leaves the intent open.)
#[test]
fn a_reader_payments_states_are_on_the_wire_and_never_go_backwards() {
    use PaymentState::*;
    assert_eq!(PaymentState::parse("on_reader"), Some(OnReader));
    assert_eq!(serde_json::to_string(&OnReader).unwrap(), "\"on_reader\"");
    for to in [OnReader, Captured, Authorized, Canceled, Refunded] {
        assert!(Created.can_become(to), "created -> {to:?}");
    }
    for to in [Captured, Authorized, Canceled, PartiallyRefunded] {
        assert!(OnReader.can_become(to), "on_reader -> {to:?}");
    }
    for to in [Created, Authorizing, QueuedOffline] {
        assert!(!OnReader.can_become(to), "on_reader -> {to:?}");
    }
    assert_eq!(OnReader.allowed_next(), &[Captured, Authorized, Canceled], "no direct edge to failed");
    assert!(!Captured.can_become(OnReader) && !Canceled.can_become(OnReader));
    assert!(OnReader.unsettled() && !OnReader.money_taken());
}

#[test]
fn every_store_tender_kind_has_its_wire_twin() {
    let ledger: Vec<&str> = paydesk_domain::StoreTenderKind::ALL.iter().map(|k| k.as_str()).collect();
    let wire: Vec<&str> = paydesk_sync_proto::StoreTenderKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(ledger, wire);
    for k in paydesk_sync_proto::StoreTenderKind::ALL {
        assert_eq!(serde_json::to_value(k).unwrap(), serde_json::json!(k.as_str()));
    }
}
