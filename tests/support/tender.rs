//! The tender panel as a cashier drives it with the keyboard, shared by the window tests
//! that need a paid split sale before what they test (returns, exchanges).

use thirtyfour::prelude::*;

use crate::{App, LONG};

impl App {
    /// Sends one key to the page (the register's F-keys).
    pub async fn key(&self, k: Key) {
        self.el("body").await.send_keys(k).await.unwrap();
    }

    /// Scans `skus` and waits for the cart's total to read `total`.
    pub async fn scan_up(&self, skus: &[&str], total: &str) {
        for s in skus {
            self.scan(s).await;
        }
        self.wait_js(&format!("return document.getElementById('cart-total').textContent === '{total}'"), "the total", LONG).await;
    }

    /// A card tender of `amount` (typed) on the tender panel (F7), waited for until the
    /// panel lists `tenders` tenders.
    pub async fn pay_card_part(&self, amount: &str, tenders: u32) {
        self.key(Key::F7).await;
        let f = self.el("#card-form #card-amount").await;
        f.clear().await.unwrap();
        f.send_keys(amount).await.unwrap();
        f.send_keys(Key::Enter).await.unwrap();
        self.wait_js(
            &format!("const t = document.getElementById('tender'); return t.dataset.busy !== 'true' && t.dataset.tenders === '{tenders}'"),
            "the card paid",
            LONG,
        )
        .await;
    }

    /// Scans `skus`, waits for `total`, pays `card` (typed; none when empty) by card and
    /// the rest in cash (exact); the sale's number once paid and its receipt shown.
    pub async fn paid_split_sale(&self, skus: &[&str], total: &str, card: &str) -> i64 {
        self.scan_up(skus, total).await;
        if !card.is_empty() {
            self.pay_card_part(card, 1).await;
        }
        self.key(Key::F6).await;
        let due = self.wait_js("const d = document.getElementById('tender-due'); return +d.dataset.minor > 0 && d.textContent", "the due", LONG).await;
        let f = self.el("#cash-form #cash-tendered").await;
        f.clear().await.unwrap();
        // The due as shown ("$10.70", "¥1,900"), typed without its symbol and separators.
        f.send_keys(due.as_str().unwrap().chars().filter(|c| c.is_ascii_digit() || *c == '.').collect::<String>()).await.unwrap();
        f.send_keys(Key::Enter).await.unwrap();
        self.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
        self.wait_js("return document.querySelector('#view-register .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
        self.js("return +document.querySelector('#view-register .receipt-panel').dataset.cart").await.as_i64().unwrap()
    }

    /// Presses Print under a return's document in Payments and waits until the screen
    /// says print `n` went to the printer; the message shown.
    pub async fn print_return_document(&self, n: usize) -> String {
        self.click("#payment-detail #return-print").await;
        self.wait_js(
            &format!("const m = document.getElementById('return-print-msg'); return m.dataset.code === 'printed' && m.dataset.printNo === '{n}'"),
            "printed",
            LONG,
        )
        .await;
        self.text("#payment-detail #return-print-msg").await
    }

    /// Picks a language in Settings (F4) the way the select does it, and waits until the
    /// page speaks it.
    pub async fn choose_language(&self, code: &str) {
        self.key(Key::F4).await;
        self.el("#set-language").await;
        self.js(&format!("const s = document.getElementById('set-language'); s.value = '{code}'; s.dispatchEvent(new Event('change')); return true"))
            .await;
        self.wait_js(
            &format!("return document.documentElement.lang === '{code}' && !document.getElementById('set-language').disabled"),
            "the screen to switch language",
            LONG,
        )
        .await;
    }
}
