//! The wire's payment and refund states are exactly the ledger's, by name and by serde
//! form, so a register can send every state it has and nothing else.
use paydesk_sync_proto::{PaymentState, RefundState};

#[test]
fn every_ledger_payment_state_has_its_wire_twin_and_back() {
    let ledger: Vec<&str> = paydesk_ledger::PaymentState::ALL.iter().map(|s| s.as_str()).collect();
    let wire: Vec<&str> = PaymentState::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(ledger, wire);
    for s in paydesk_ledger::PaymentState::ALL {
        let json = serde_json::to_string(&s).unwrap();
        let w: PaymentState = serde_json::from_str(&json).unwrap();
        assert_eq!(w.as_str(), s.as_str());
    }
}

#[test]
fn every_ledger_refund_state_has_its_wire_twin_and_back() {
    let ledger: Vec<&str> = paydesk_ledger::RefundState::ALL.iter().map(|s| s.as_str()).collect();
    let wire: Vec<&str> = RefundState::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(ledger, wire);
    for s in paydesk_ledger::RefundState::ALL {
        let w: RefundState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(w.as_str(), s.as_str());
    }
}
