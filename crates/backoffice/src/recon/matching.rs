//! The matching itself, with no I/O (record 0042). The PSP side is held in a compact form
//! (what matching needs of each charged intent and each refund, ~100 bytes per charge),
//! sorted by key; the register side is never held: each record, in any order, is looked up
//! in it as it streams from PostgreSQL, and marks the PSP objects it found. What stays
//! unmarked at the end was charged or refunded at the PSP with no register record.
use super::ExceptionKind;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::{PaymentState, RefundState};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::ops::Range;

/// A register's payment as the projection holds it.
#[derive(Debug, Clone)]
pub struct RegPayment {
    pub checkout_key: String,
    pub amount: i64,
    pub currency: String,
    pub state: PaymentState,
}

#[derive(Debug, Clone)]
pub struct RegRefund {
    pub refund_key: String,
    pub checkout_key: String,
    pub amount: i64,
    pub state: RefundState,
}

/// One disagreement: its kind, what it is about (a key or a PSP id) and the facts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub kind: ExceptionKind,
    pub subject: String,
    pub detail: Value,
}

/// The statuses of an intent that took or holds money; every other intent is dropped as
/// its page is read, since matching never looks at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChargedStatus {
    Succeeded,
    RequiresCapture,
    Processing,
}

impl ChargedStatus {
    pub fn parse(s: &str) -> Option<ChargedStatus> {
        match s {
            "succeeded" => Some(ChargedStatus::Succeeded),
            "requires_capture" => Some(ChargedStatus::RequiresCapture),
            "processing" => Some(ChargedStatus::Processing),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            ChargedStatus::Succeeded => "succeeded",
            ChargedStatus::RequiresCapture => "requires_capture",
            ChargedStatus::Processing => "processing",
        }
    }
}

/// `key_at` of a charge whose intent has no `metadata[checkout_key]` (distinct from an
/// empty key, which the old matching also told apart).
const NO_KEY: u32 = u32::MAX;

/// One charged PaymentIntent: 32 bytes plus one allocation holding the PSP id followed by
/// the checkout key (one allocation, not two: a 27-byte id and a 16-byte key take a
/// 64-byte malloc chunk together and 48 + 32 apart, and the struct 16 bytes less).
#[derive(Debug)]
struct Charge {
    text: Box<str>,
    amount: i64,
    key_at: u32,
    /// Index into `Charges::currencies`: an account has a handful of currencies.
    currency: u16,
    status: ChargedStatus,
    /// A register record with this checkout key was seen.
    recorded: bool,
}

impl Charge {
    fn id(&self) -> &str {
        &self.text[..self.key_at.min(self.text.len() as u32) as usize]
    }

    fn key(&self) -> Option<&str> {
        (self.key_at != NO_KEY).then(|| &self.text[self.key_at as usize..])
    }
}

/// The account's charged intents, in the order the PSP listed them until `sorted`.
#[derive(Debug, Default)]
pub struct Charges {
    list: Vec<Charge>,
    currencies: Vec<Box<str>>,
    currency_ids: HashMap<Box<str>, u16>,
}

impl Charges {
    pub fn add(&mut self, id: &str, key: Option<&str>, amount: i64, currency: &str, status: ChargedStatus) -> ApiResult<()> {
        let too_long = || ApiError::Psp(format!("PaymentIntent id or checkout key longer than {NO_KEY} bytes"));
        let key_at = match key {
            Some(_) => u32::try_from(id.len()).ok().filter(|&n| n != NO_KEY).ok_or_else(too_long)?,
            None => NO_KEY,
        };
        let mut text = String::with_capacity(id.len() + key.map_or(0, str::len));
        text.push_str(id);
        text.push_str(key.unwrap_or(""));
        let currency = match self.currency_ids.get(currency) {
            Some(&c) => c,
            None => {
                let c = u16::try_from(self.currencies.len()).map_err(|_| ApiError::Psp("more than 65,535 currencies in one PSP account".into()))?;
                self.currencies.push(currency.into());
                self.currency_ids.insert(currency.into(), c);
                c
            }
        };
        self.list.push(Charge { text: text.into_boxed_str(), amount, key_at, currency, status, recorded: false });
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Stable: intents of one key keep the PSP's order, so exceptions of one key come out
    /// in the order the old matching found them (the last one's detail is what is stored).
    fn sort(&mut self) {
        self.list.shrink_to_fit();
        self.list.sort_by(|a, b| a.key().cmp(&b.key()));
    }

    fn group(&self, key: &str) -> Range<usize> {
        let start = self.list.partition_point(|c| c.key() < Some(key));
        let end = start + self.list[start..].partition_point(|c| c.key() == Some(key));
        start..end
    }
}

/// One refund at the PSP that succeeded or is pending (the others never match anything).
/// Refunds are far fewer than charges, so they are kept plainly (~150 bytes each).
#[derive(Debug)]
struct Refund {
    id: Box<str>,
    key: Option<Box<str>>,
    payment_intent: Option<Box<str>>,
    amount: i64,
    recorded: bool,
}

#[derive(Debug, Default)]
pub struct Refunds {
    list: Vec<Refund>,
}

impl Refunds {
    pub fn add(&mut self, id: &str, key: Option<&str>, payment_intent: Option<&str>, amount: i64) {
        self.list.push(Refund { id: id.into(), key: key.map(Into::into), payment_intent: payment_intent.map(Into::into), amount, recorded: false });
    }

    fn sort(&mut self) {
        self.list.shrink_to_fit();
        self.list.sort_by(|a, b| a.key.cmp(&b.key));
    }

    fn group(&self, key: &str) -> Range<usize> {
        let start = self.list.partition_point(|r| r.key.as_deref() < Some(key));
        let end = start + self.list[start..].partition_point(|r| r.key.as_deref() == Some(key));
        start..end
    }
}

/// Matching of one run: built from the PSP side, fed every register record once, then
/// finished. The exceptions are those of record 0042's table; `matched` counts each
/// charge and each refund that agreed.
pub struct Matcher {
    charges: Charges,
    refunds: Refunds,
    found: Vec<Found>,
    matched: u64,
}

impl Matcher {
    pub fn new(mut charges: Charges, mut refunds: Refunds) -> Matcher {
        charges.sort();
        refunds.sort();
        Matcher { charges, refunds, found: Vec::new(), matched: 0 }
    }

    /// One register payment against every charge for its key.
    pub fn payment(&mut self, p: &RegPayment) {
        let group = self.charges.group(&p.checkout_key);
        let Charges { list, currencies, .. } = &mut self.charges;
        for c in &mut list[group.clone()] {
            c.recorded = true;
            let currency = &*currencies[usize::from(c.currency)];
            if c.amount != p.amount || currency != p.currency {
                self.found.push(Found {
                    kind: ExceptionKind::AmountDiffers,
                    subject: p.checkout_key.clone(),
                    detail: json!({"psp_id": c.id(), "psp_amount": c.amount, "psp_currency": currency, "register_amount": p.amount, "register_currency": p.currency}),
                });
            } else if !p.state.money_taken() && !p.state.unsettled() {
                self.found.push(Found {
                    kind: ExceptionKind::StateDiffers,
                    subject: p.checkout_key.clone(),
                    detail: json!({"psp_id": c.id(), "psp_status": c.status.as_str(), "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
                });
            } else {
                self.matched += 1;
            }
        }
        if group.len() > 1 {
            let ids: Vec<&str> = list[group].iter().map(Charge::id).collect();
            self.found.push(Found { kind: ExceptionKind::DuplicateCharge, subject: p.checkout_key.clone(), detail: json!({"psp_ids": ids}) });
        } else if group.is_empty() && p.state.money_taken() {
            self.found.push(Found {
                kind: ExceptionKind::RecordWithoutCharge,
                subject: p.checkout_key.clone(),
                detail: json!({"checkout_key": p.checkout_key, "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
            });
        }
    }

    /// One register refund against every PSP refund carrying its key.
    pub fn refund(&mut self, r: &RegRefund) {
        let group = self.refunds.group(&r.refund_key);
        for re in &mut self.refunds.list[group.clone()] {
            re.recorded = true;
            if r.amount != re.amount || r.state == RefundState::Failed {
                self.found.push(Found {
                    kind: ExceptionKind::RefundMismatch,
                    subject: r.refund_key.clone(),
                    detail: json!({"problem": "amount or outcome differs", "psp_refund_id": re.id, "psp_amount": re.amount, "register_amount": r.amount, "register_state": r.state.as_str()}),
                });
            } else {
                self.matched += 1;
            }
        }
        // Every PSP refund of the key either matched or is already an exception about it.
        if group.is_empty() && r.state == RefundState::Succeeded {
            self.found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: r.refund_key.clone(),
                detail: json!({"problem": "refunded at a register, no refund at the PSP", "refund_key": r.refund_key, "checkout_key": r.checkout_key, "amount": r.amount}),
            });
        }
    }

    /// One refund the back office itself paid back or is paying back (an owed refund,
    /// record 0142), against the PSP refunds carrying its key: not a register's refund, and
    /// not "refunded at the PSP, no register record" either.
    pub fn owed_refund(&mut self, key: &str, amount: i64, succeeded: bool) {
        let group = self.refunds.group(key);
        for re in &mut self.refunds.list[group.clone()] {
            re.recorded = true;
            if re.amount != amount {
                self.found.push(Found {
                    kind: ExceptionKind::RefundMismatch,
                    subject: key.to_string(),
                    detail: json!({"problem": "a refund owed back differs at the PSP", "psp_refund_id": re.id, "psp_amount": re.amount, "owed_amount": amount}),
                });
            } else {
                self.matched += 1;
            }
        }
        if group.is_empty() && succeeded {
            self.found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: key.to_string(),
                detail: json!({"problem": "paid back by the back office, no refund at the PSP", "refund_key": key, "amount": amount}),
            });
        }
    }

    /// What no register record claimed, then everything found and the matched count.
    pub fn finish(mut self) -> (Vec<Found>, u64) {
        let Charges { list, currencies, .. } = &self.charges;
        for c in list.iter().filter(|c| !c.recorded) {
            self.found.push(Found {
                kind: ExceptionKind::ChargeWithoutRecord,
                subject: c.id().to_string(),
                detail: json!({"psp_id": c.id(), "checkout_key": c.key(), "amount": c.amount, "currency": &*currencies[usize::from(c.currency)], "psp_status": c.status.as_str()}),
            });
        }
        for re in self.refunds.list.iter().filter(|r| !r.recorded) {
            self.found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: re.id.to_string(),
                detail: json!({"problem": "refunded at the PSP, no register record", "psp_refund_id": re.id, "refund_key": re.key, "amount": re.amount, "payment_intent": re.payment_intent}),
            });
        }
        (self.found, self.matched)
    }
}

#[cfg(all(test, target_pointer_width = "64"))]
mod size {
    /// The arithmetic of record 0042 counts on it: every 8 bytes more here is 8 MB more
    /// at the 1,000,000 charges a run may hold.
    #[test]
    fn a_charge_is_32_bytes_plus_its_text() {
        assert_eq!(std::mem::size_of::<super::Charge>(), 32);
    }
}
