//! A weighed line on the receipt (record 0134): its weight and price per unit under its
//! name, "0.452 kg @ $0.69/kg" or "152g @¥398/100g", then the amount. The amount is the
//! ledger's (the tax crate's `weighed_amount`); the document checks it is, so a receipt
//! never prints a weight and a price that do not make its amount.

use paydesk_tax::{kilograms_text, weighed_amount, SaleUnit};
use serde::{Deserialize, Serialize};

/// What a weighed line was rung at: `grams` at `rate` (minor units) per `unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Weighed {
    pub grams: i64,
    pub unit: SaleUnit,
    pub rate: i64,
}

impl Weighed {
    /// Whether a line of `quantity` at `unit_price` is this weight's: 1 at its amount. The
    /// reason when it is not.
    pub(crate) fn check(&self, unit_price: i64, quantity: u32) -> Result<(), String> {
        let amount = weighed_amount(self.rate, self.grams, self.unit).map_err(|e| e.to_string())?;
        if quantity != 1 || unit_price != amount {
            return Err(format!("{} g is 1 line at {amount}, not {quantity} at {unit_price}", self.grams));
        }
        Ok(())
    }

    /// "0.452 kg @ $0.69/kg" (per kilogram) or "152g @¥398/100g" (per 100 g), the rate
    /// formatted by `money`: the receipt's line and the app cart's, one text.
    pub fn text(&self, money: &dyn Fn(i64) -> String) -> String {
        match self.unit {
            SaleUnit::HundredGrams => format!("{}g @{}/{}", self.grams, money(self.rate), self.unit.label()),
            SaleUnit::Kilogram | SaleUnit::Piece => {
                format!("{} kg @ {}/{}", kilograms_text(self.grams), money(self.rate), self.unit.label())
            }
        }
    }
}
