//! A new ryōshūsho for what the customer kept after a return (issue #29, record 0145),
//! table `ryoshusho_reissues` (schema v37).
//!
//! A return of part of a sale with a ryōshūsho needs it handed back (record 0114); the
//! customer who still needs a formal receipt for the goods they kept gets a new one, with
//! its own number (`<receipt number>-2`, then `-3` …) and the same words by default. Its
//! amount is what they kept: the sale's total less what the returns took back, and
//! nothing else. The ledger works the amount out from its own rows, twice over, and
//! refuses when the two disagree ([`ReissueRefusal::KeptNotStated`]):
//!
//! - by the returns: the sale's total less every return's total (what came back, the part
//!   an exchange carried to another sale included), per tax rate from `return_rates`;
//! - by the money: what each of the sale's tenders (and its exchange credit) still holds
//!   after every refund, drawer payout, store refund and credit carried away.
//!
//! They agree unless money went back by amount (a refund with no lines, whose tax per
//! rate nobody stated) or a return's card refund failed (the store still owes it). Either
//! way the kept document would state amounts the ledger cannot vouch for, so it is refused
//! rather than printed: never a ryōshūsho for more than the customer paid and kept.

use paydesk_domain::TenderKind;
use paydesk_tax::RateReturn;
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use super::{audit_tx, current_tx, ryoshusho_generation_number, IssuedRyoshusho, RyoshushoGeneration, RyoshushoIssue, RyoshushoRecord};
use crate::error::{Error, ReissueRefusal, Result};
use crate::ledger::{collect, Cached, Ledger, Receipts};
use crate::tender::SaleState;
use crate::types::CartId;

/// How one part of what was kept was paid (cash, card, a store tender), as the document
/// prints it: the kind, whether it counts as cash for the stamp rule, and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptPart {
    pub kind: TenderKind,
    pub counts_for_stamp: bool,
    pub amount_minor: i64,
}

/// What the customer kept of a sale after its returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RyoshushoKept {
    pub cart_id: CartId,
    /// The sale's total less what its returns took back.
    pub total_minor: i64,
    /// The cash part of it (what the ryōshūsho records as cash).
    pub cash_minor: i64,
    /// What the returns took back, per rate (summed over the sale's returns).
    pub returned: Vec<RateReturn>,
    /// How what was kept was paid: cash, card, store tenders that count for the stamp,
    /// then those that do not (an exchange credit among them, as the receipt prints it).
    pub parts: Vec<KeptPart>,
    /// The sale's last return (the new ryōshūsho states what was kept after it).
    pub last_return_id: i64,
}

/// The reissued generations of the sale's ryōshūsho (2, 3, …), oldest first.
pub(super) fn reissues_tx(conn: &Connection, cart_id: CartId) -> Result<Vec<RyoshushoGeneration>> {
    collect(
        conn,
        "SELECT generation, number, addressee, description, total_minor, cash_minor, stamp_duty_minor, issued_by, issued_at_ms,
                print_count, taken_back_at_ms
         FROM ryoshusho_reissues WHERE cart_id = ?1 ORDER BY generation",
        [cart_id.0],
        |r| {
            let generation: i64 = r.get(0)?;
            Ok(Ok(RyoshushoGeneration {
                record: RyoshushoRecord {
                    cart_id,
                    number: r.get(1)?,
                    addressee: r.get(2)?,
                    description: r.get(3)?,
                    total_minor: r.get(4)?,
                    cash_minor: r.get(5)?,
                    stamp_duty_minor: r.get(6)?,
                    issued_by: r.get(7)?,
                    issued_at_ms: r.get(8)?,
                    print_count: r.get(9)?,
                    generation,
                    replaces: Some(ryoshusho_generation_number(cart_id, generation - 1)),
                },
                taken_back_at_ms: r.get(10)?,
                replaced_by: None,
            }))
        },
    )
}

/// What the customer kept of the paid sale `cart_id` (see the module): refused when the
/// returns and the money disagree, when nothing came back, or nothing was kept.
pub(super) fn kept_tx(conn: &Connection, cart_id: CartId) -> Result<RyoshushoKept> {
    let refuse = |why| Error::RyoshushoReissueRefused { cart_id: cart_id.0, why };
    let sale = crate::ledger::sale::sale_tx(conn, cart_id)?;
    if sale.state != SaleState::Paid {
        return Err(Error::RyoshushoUnpaid { cart_id: cart_id.0, state: sale.state.as_str() });
    }
    let (returned_total, last_return_id): (i64, Option<i64>) = conn.row_cached(
        "SELECT COALESCE(SUM(total_minor), 0), MAX(id) FROM returns WHERE cart_id = ?1",
        [cart_id.0],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let Some(last_return_id) = last_return_id else { return Err(refuse(ReissueRefusal::NoReturn)) };
    let total_minor = sale.totals.total_minor - returned_total;
    if total_minor <= 0 {
        return Err(refuse(ReissueRefusal::NothingKept));
    }
    let returned: Vec<RateReturn> = collect(
        conn,
        "SELECT rr.class, rr.ppm, SUM(rr.base_minor), SUM(rr.tax_minor), SUM(rr.gross_minor)
         FROM return_rates rr JOIN returns r ON r.id = rr.return_id WHERE r.cart_id = ?1
         GROUP BY rr.class, rr.ppm ORDER BY CASE rr.class WHEN 'standard' THEN 0 WHEN 'reduced' THEN 1 ELSE 2 END, rr.ppm",
        [cart_id.0],
        |r| {
            let class: String = r.get(0)?;
            let (ppm, base, tax, gross) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            Ok(crate::ledger::catalog::parse_class(&class)
                .ok_or(Error::UnknownValue { what: "tax class", value: class })
                .map(|class| RateReturn { class, ppm, base, tax, gross }))
        },
    )?;
    // The money side: what every tender of the sale, and its exchange credit, still holds.
    let mut held: Vec<(TenderKind, bool, i64)> = Vec::new();
    for slot in crate::ledger::sale::own_slots_tx(conn, &sale)? {
        let counts = match slot.tender.kind {
            TenderKind::Cash => true,
            TenderKind::Card => false,
            TenderKind::Store => slot.tender.store.as_ref().is_some_and(|s| s.counts_for_stamp),
        };
        held.push((slot.tender.kind, counts, slot.left));
    }
    for (_, _, left) in crate::ledger::exchange::credit_slots_tx(conn, &sale)? {
        // The credit prints as a store tender that is not cash (receipt_sale_data): the
        // new sale's document says the same of it as the first one did.
        held.push((TenderKind::Store, false, left));
    }
    let order = [(TenderKind::Cash, true), (TenderKind::Card, false), (TenderKind::Store, true), (TenderKind::Store, false)];
    let parts: Vec<KeptPart> = order
        .iter()
        .map(|&(kind, counts)| KeptPart {
            kind,
            counts_for_stamp: counts,
            amount_minor: held.iter().filter(|(k, c, _)| *k == kind && *c == counts).map(|(_, _, a)| a).sum(),
        })
        .filter(|p| p.amount_minor > 0)
        .collect();
    let paid: i64 = parts.iter().map(|p| p.amount_minor).sum();
    if paid != total_minor {
        return Err(refuse(ReissueRefusal::KeptNotStated { by_returns: total_minor, by_tenders: paid }));
    }
    let cash_minor = parts.iter().filter(|p| p.kind == TenderKind::Cash).map(|p| p.amount_minor).sum();
    Ok(RyoshushoKept { cart_id, total_minor, cash_minor, returned, parts, last_return_id })
}

/// The ryōshūsho a new one would replace: the sale's newest, once handed back.
fn replaceable_tx(conn: &Connection, cart_id: CartId) -> Result<RyoshushoRecord> {
    let refuse = |why| Error::RyoshushoReissueRefused { cart_id: cart_id.0, why };
    match current_tx(conn, cart_id)? {
        None => Err(refuse(ReissueRefusal::NoneIssued)),
        Some(g) if g.taken_back_at_ms.is_none() => Err(refuse(ReissueRefusal::StillValid { number: g.record.number })),
        Some(g) => Ok(g.record),
    }
}

impl<L: std::ops::Deref<Target = Ledger>> Receipts<L> {
    /// What the customer kept of the sale after its returns (see the module), for the new
    /// ryōshūsho's document; refused as [`Receipts::reissue_ryoshusho`] would for the amounts.
    pub fn ryoshusho_kept(&self, cart_id: CartId) -> Result<RyoshushoKept> {
        kept_tx(&self.conn, cart_id)
    }

    /// The ryōshūsho a new one for what was kept would replace (the newest, handed back);
    /// refused as [`Receipts::reissue_ryoshusho`] would: none issued, or still valid.
    pub fn ryoshusho_replaceable(&self, cart_id: CartId) -> Result<RyoshushoRecord> {
        replaceable_tx(&self.conn, cart_id)
    }
}

impl Receipts<&mut Ledger> {
    /// Issues a new ryōshūsho for what the customer kept after a return (record 0145), in
    /// place of the one they handed back: the next generation, numbered
    /// `<receipt number>-<generation>`. `issue` states the document the engine built from
    /// [`Receipts::ryoshusho_kept`]; its total and cash part must be exactly what the ledger
    /// finds kept in this transaction (else `InvalidAmount`). Refused, nothing written: a
    /// sale not paid, one with no ryōshūsho, one whose ryōshūsho is still with the customer
    /// (it is reprinted instead), no return, nothing kept, returns and money that disagree
    /// ([`Error::RyoshushoReissueRefused`]), and an open refund of one of its cards.
    pub fn reissue_ryoshusho(&mut self, cart_id: CartId, issue: &RyoshushoIssue<'_>, now_ms: i64) -> Result<IssuedRyoshusho> {
        let tx = self.write_tx()?;
        let current = replaceable_tx(&tx, cart_id)?;
        let kept = kept_tx(&tx, cart_id)?;
        let duty_ok = issue.stamp_duty_minor.is_none_or(|d| d > 0);
        if issue.total_minor != kept.total_minor || issue.cash_minor != kept.cash_minor || !duty_ok {
            return Err(Error::InvalidAmount(format!(
                "a ryōshūsho of {} with {} in cash for a sale whose customer kept {} with {} in cash",
                issue.total_minor, issue.cash_minor, kept.total_minor, kept.cash_minor
            )));
        }
        let issued_by = match issue.issued_by {
            Some(id) => Some(id),
            None => crate::ledger::session::operator(&tx)?,
        };
        let generation = current.generation + 1;
        let record = RyoshushoRecord {
            cart_id,
            number: ryoshusho_generation_number(cart_id, generation),
            addressee: issue.addressee.trim().to_string(),
            description: issue.description.trim().to_string(),
            total_minor: kept.total_minor,
            cash_minor: kept.cash_minor,
            stamp_duty_minor: issue.stamp_duty_minor,
            issued_by,
            issued_at_ms: now_ms,
            print_count: 1,
            generation,
            replaces: Some(current.number),
        };
        let r = &record;
        tx.exec_cached(
            "INSERT INTO ryoshusho_reissues (cart_id, generation, number, addressee, description, total_minor, cash_minor,
                                             stamp_duty_minor, after_return_id, issued_by, issued_at_ms, print_count, last_issued_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?11)",
            params![
                cart_id.0,
                generation,
                r.number,
                r.addressee,
                r.description,
                r.total_minor,
                r.cash_minor,
                r.stamp_duty_minor,
                kept.last_return_id,
                r.issued_by,
                now_ms
            ],
        )?;
        let issued = IssuedRyoshusho { record, reprint: false };
        audit_tx(&tx, &issued, issue.issued_by, now_ms)?;
        tx.commit()?;
        Ok(issued)
    }
}
