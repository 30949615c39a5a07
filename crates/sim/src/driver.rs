//! The simulation's state between two steps: the register engine (rebuilt after each
//! simulated crash), the in-process PSP and wire, the sales as the cashier saw them, and
//! the counters of the report.

use crate::config::{engine_config, LedgerMode, SimConfig};
use crate::profile::Rates;
use crate::report::EventCounts;
use crate::records::{CartSale, ReaderSale, SplitSale};
use crate::world::{self, PlantedBug, PspClock, Stored500, RegisterClock, SimTransport, TimeCore, Wire};
use crate::{EPOCH_MS, SECRET};
use mock_psp::MockPsp;
use paydesk_ledger::{Ledger, NewProduct, SeededKeys};
use paydesk_domain::{Currency, Money, StoreTenderKind, TenderTypeId};
use paydesk_register::{CheckoutOutcome, CheckoutReport, Engine, EngineError, SeededRandom};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// One customer's sale, as the cashier saw it.
#[derive(Debug, Clone)]
pub(crate) struct Sale {
    pub amount: Money,
    /// Checkout keys the cashier was shown, with the outcome shown.
    pub told: Vec<(String, CheckoutOutcome)>,
    /// A sale paid by several tenders (its cart, and what each answer told).
    pub split: Option<SplitSale>,
    /// A sale paid on a card reader (what each press told the cashier).
    pub reader: Option<ReaderSale>,
    /// A single-card sale of a cart (returns may take its lines back).
    pub cart_sale: Option<CartSale>,
}

pub(crate) struct Sim {
    pub(crate) cfg: SimConfig,
    pub(crate) rates: Rates,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) core: Arc<TimeCore>,
    pub(crate) wire: Arc<Wire>,
    pub(crate) psp: MockPsp,
    pub(crate) engine: Option<Engine>,
    pub(crate) generation: u64,
    pub(crate) events_lookback: Duration,
    pub(crate) sales: Vec<Sale>,
    pub(crate) paid_keys: Vec<String>,
    pub(crate) authorized_keys: Vec<String>,
    /// Split sales paid in full (refunds pick from them).
    pub(crate) paid_splits: Vec<usize>,
    /// Split sales with a card tender accepted offline (it may come back declined).
    pub(crate) offline_splits: Vec<usize>,
    /// Checks made during the run (rule 3 per tender), for the audit.
    pub(crate) mid_violations: Vec<(&'static str, String)>,
    /// How often each of those was checked.
    pub(crate) mid_checked: BTreeMap<&'static str, u64>,
    /// The run's `MidRunPlant` was made (it is made once).
    pub(crate) planted: bool,
    pub(crate) rep: Counters,
    /// The simulated reader (registered once, before the first sale, with reader sales on).
    pub(crate) reader: Option<String>,
    /// The store's own tender types split sales may use (record 0118), with whether each
    /// gives change; none without split sales.
    pub(crate) store_types: Vec<(TenderTypeId, bool)>,
    /// The register's replacement, once it is replaced (`restored.rs`).
    pub(crate) successor: Option<crate::successor::Successor>,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) faults: BTreeMap<String, u64>,
    pub(crate) outcomes: BTreeMap<String, u64>,
    pub(crate) errors: BTreeMap<String, u64>,
    pub(crate) restarts: u64,
    pub(crate) double_submits: u64,
    pub(crate) new_card: u64,
    pub(crate) captures: u64,
    pub(crate) cancels: u64,
    pub(crate) refunds: u64,
    pub(crate) events: EventCounts,
    /// Split sales: what the cashier did and saw, per kind.
    pub(crate) tenders: BTreeMap<String, u64>,
    /// Reader sales: customer behaviours, presses, what was told, reader-step crashes.
    pub(crate) readers: BTreeMap<String, u64>,
    /// Sales paid on the reader (one customer each).
    pub(crate) reader_sales: u64,
}

impl Sim {
    pub(crate) fn new(cfg: SimConfig) -> Sim {
        world::install_quiet_crash_hook();
        let core = TimeCore::new(EPOCH_MS);
        let psp = MockPsp::builder()
            .memory()
            .secret_key(SECRET)
            .faults(cfg.profile.psp_faults())
            .seed(cfg.seed)
            .clock(Arc::new(PspClock(core.clone())))
            .lock_timeout(Duration::from_secs(30))
            .retention(Duration::from_secs(24 * 3600))
            .crash_point(None)
            // One request at a time on this thread: run the PSP's writes right here
            // instead of hopping to its writer thread (same order, same results).
            .inline_writes_for_single_threaded_simulation(true)
            .build()
            .expect("mock PSP");
        let wire = Wire::new(core.clone(), psp.clone(), SECRET, cfg.seed);
        // The restored refunds' bug is armed when the successor starts (`restored.rs`).
        *wire.bug.lock() = cfg.bug.filter(|b| *b != PlantedBug::FreshRefundKeyOnRetry);
        *wire.stored_500.lock() = (
            cfg.profile.stored_500_rate(),
            cfg.stored_500.unwrap_or(if cfg.avoid_known_bugs { Stored500::CreatesOnly } else { Stored500::Everywhere }),
        );
        let mut sim = Sim {
            rates: cfg.profile.rates(),
            rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5349_4d55),
            cfg,
            core,
            wire,
            psp,
            engine: None,
            generation: 0,
            events_lookback: engine_config().events_lookback,
            sales: Vec::new(),
            paid_keys: Vec::new(),
            authorized_keys: Vec::new(),
            paid_splits: Vec::new(),
            offline_splits: Vec::new(),
            mid_violations: Vec::new(),
            mid_checked: BTreeMap::new(),
            planted: false,
            rep: Counters::default(),
            reader: None,
            store_types: Vec::new(),
            successor: None,
        };
        let mut ledger = sim.open_ledger(None);
        ledger
            .carts_mut().seed_catalog(&catalog())
            .expect("catalog");
        if sim.cfg.split_share > 0.0 {
            ledger.carts_mut().seed_catalog(&split_catalog()).expect("split catalog");
            // Cash rounding in half the seeds: EUR to 0.05, as the Netherlands round cash.
            if sim.cfg.seed.is_multiple_of(2) {
                ledger.sales_mut().set_cash_rounding(Currency::Eur, 5).expect("cash rounding");
            }
            // The store's own tenders: a voucher that gives no change (the rest is kept),
            // a gift card that does (from the drawer), a QR payment taken for the amount.
            for (name, kind, gives_change) in
                [("Gift voucher", StoreTenderKind::Voucher, false), ("Gift card", StoreTenderKind::Voucher, true), ("PayPay", StoreTenderKind::Qr, false)]
            {
                let t = ledger.tender_types_mut().add(name, kind, gives_change, kind == StoreTenderKind::Voucher, EPOCH_MS).expect("tender type");
                sim.store_types.push((t.id, gives_change));
            }
        }
        sim.engine = Some(sim.build_engine(ledger));
        sim
    }

    pub(crate) fn open_ledger(&self, from: Option<Ledger>) -> Ledger {
        let keys = Box::new(SeededKeys::new(self.cfg.seed ^ (self.generation.wrapping_mul(0x9E37_79B9))));
        match (&self.cfg.ledger, from) {
            (LedgerMode::Memory, Some(l)) => l,
            (LedgerMode::Memory, None) => Ledger::open_in_memory(keys).expect("in-memory ledger"),
            (LedgerMode::Dir(d), _) => Ledger::open_with_keys(d.join("register.db"), keys).expect("ledger file"),
        }
    }

    pub(crate) fn build_engine(&self, ledger: Ledger) -> Engine {
        let mut cfg = engine_config();
        cfg.events_lookback = self.events_lookback;
        Engine::new(
            ledger,
            Arc::new(SimTransport(self.wire.clone())),
            Arc::new(RegisterClock(self.core.clone())),
            Arc::new(SeededRandom::new(self.cfg.seed ^ 0x7265_6721 ^ self.generation)),
            cfg,
        )
        .with_crash_hook(self.wire.crash_hook())
    }

    pub(crate) fn engine(&self) -> Engine {
        self.engine.clone().expect("engine")
    }

    pub(crate) fn fault(&mut self, k: &str) {
        *self.rep.faults.entry(k.to_string()).or_default() += 1;
    }

    pub(crate) fn count_events(&mut self, ev: Result<paydesk_register::EventsReport, EngineError>) {
        self.rep.events.polls += 1;
        match ev {
            Ok(r) => {
                self.rep.events.fetched += r.fetched as u64;
                self.rep.events.applied += r.applied as u64;
                self.rep.events.duplicates += r.duplicates as u64;
            }
            Err(e) => *self.rep.errors.entry(format!("events:{}", e.code())).or_default() += 1,
        }
    }

    pub(crate) fn record(&mut self, sale: usize, r: &Result<CheckoutReport, EngineError>) {
        match r {
            Ok(rep) => {
                *self.rep.outcomes.entry(rep.outcome.as_str().into()).or_default() += 1;
                self.sales[sale].told.push((rep.checkout_key.clone(), rep.outcome));
                match rep.outcome {
                    CheckoutOutcome::Paid => self.paid_keys.push(rep.checkout_key.clone()),
                    CheckoutOutcome::Authorized => self.authorized_keys.push(rep.checkout_key.clone()),
                    _ => {}
                }
            }
            Err(e) => *self.rep.errors.entry(e.code().into()).or_default() += 1,
        }
    }

}

/// The products every run sells (and a successor restores, `restored.rs`).
pub(crate) fn catalog() -> Vec<NewProduct> {
    vec![
        NewProduct { sku: "JP-TEA".into(), name: "Green tea".into(), price: Money::new(180, Currency::Jpy) },
        NewProduct { sku: "JP-BENTO".into(), name: "Bento".into(), price: Money::new(980, Currency::Jpy) },
        NewProduct { sku: "JP-BOOK".into(), name: "Book".into(), price: Money::new(2_400, Currency::Jpy) },
        NewProduct { sku: "US-COFFEE".into(), name: "Coffee".into(), price: Money::new(450, Currency::Usd) },
        NewProduct { sku: "US-LUNCH".into(), name: "Lunch".into(), price: Money::new(1_575, Currency::Usd) },
    ]
}

/// Products the split sales use beyond the single-card catalog (`split::skus` picks from
/// both): EUR prices that need cash rounding (10.03 → 10.05). Kept here, where the catalog
/// is seeded, so the driver does not import `split`, which acts on the driver's state.
pub(crate) fn split_catalog() -> Vec<NewProduct> {
    vec![
        NewProduct { sku: "EU-BREAD".into(), name: "Bread".into(), price: Money::new(247, Currency::Eur) },
        NewProduct { sku: "EU-CHEESE".into(), name: "Cheese".into(), price: Money::new(1_003, Currency::Eur) },
        NewProduct { sku: "EU-WINE".into(), name: "Wine".into(), price: Money::new(1_899, Currency::Eur) },
    ]
}
