//! The store's location and its one simulated reader, registered through the engine
//! before the first sale (the PSP's request faults already apply; no crash is armed
//! yet, and no other fault of the simulation has started).

use crate::driver::Sim;

/// Tries before the run gives up: far more than the chaos profile ever needs.
const TRIES: usize = 40;

impl Sim {
    pub(crate) async fn register_reader(&mut self) {
        for _ in 0..TRIES {
            let e = self.engine();
            let r = async {
                let loc = e.create_reader_location("Sim store", &[("line1", "1-1 Sim St"), ("city", "Tokyo"), ("country", "JP")]).await?;
                e.register_reader("simulated-wpe", "Till 1", &loc).await
            }
            .await;
            match r {
                Ok(reg) => {
                    self.reader = Some(reg.reader.id);
                    return;
                }
                Err(err) => {
                    // A lost answer may leave a spare location or reader at the PSP:
                    // harmless, the register uses the one it kept.
                    self.rtally(format!("setup_retry:{}", err.code()));
                    self.core.advance(30_000);
                }
            }
        }
        panic!("the simulated reader could not be registered in {TRIES} tries");
    }
}
