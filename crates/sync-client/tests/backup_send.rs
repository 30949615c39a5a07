//! Encrypted copies sent to the REAL back office on a private PostgreSQL, over loopback
//! (record 0150): a copy sent, fetched, opened and restored gives every payment back
//! (the pending one with its key); the back office holds no clear text; a changed byte is
//! refused by its authentication tag and named; a wrong key is refused; an oversized copy
//! is refused with its own code; a register in service cannot read another's copies, a
//! replacement can once the owner marked the old one replaced; an upload cut off resumes.
use crate::register::Register;
use crate::support::Harness;

use paydesk_backoffice::state::{BackupLimits, Limits};
use paydesk_domain::*;
use paydesk_ledger::copies;
use paydesk_ledger::*;
use paydesk_sync::backup::{seal, transfer, BackupError, BackupKey};
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::BackOffice;
use base64::Engine;
use paydesk_sync_proto::backup::BACKUP_CHUNK_BYTES;
use std::path::{Path, PathBuf};

/// 2026-01-01T00:00:00Z.
const T0: i64 = 1_767_225_600_000;

impl Register {
    fn db(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }

    /// A sale through the ledger's own write path: created, sent, captured.
    fn sell_captured(&mut self, minor: i64, now: i64) {
        let p = self.pending(minor, now);
        let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
        self.ledger.payments_mut().record_psp_result(&rec, T0 + now + 2).unwrap();
        self.ledger.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", T0 + now + 3).unwrap();
    }

    /// A payment sent and not answered: pending with its key.
    fn pending(&mut self, minor: i64, now: i64) -> Payment {
        let p = self.ledger.payments_mut().create(&NewPayment { amount: Money::new(minor, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") }, T0 + now).unwrap();
        self.ledger.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", T0 + now + 1).unwrap();
        p
    }

    /// The back office as this register reaches it: its pairing and token.
    fn back_office(&self) -> BackOffice {
        let st = SyncState::load(&SyncState::path_in(self.dir.path())).unwrap();
        BackOffice::new(&st.pairing.unwrap().url, TokenFile::in_dir(self.dir.path()).load().unwrap()).unwrap()
    }

    fn register_id(&self) -> String {
        SyncState::load(&SyncState::path_in(self.dir.path())).unwrap().pairing.unwrap().register_id
    }

    /// Pairs with `store` as `name`.
    async fn pair_as(&self, h: &Harness, store: &str, name: &str) {
        let code = h.owner.pairing_code(store, name).await.unwrap();
        let (pairing, token) = paydesk_sync::run::pair(&h.url, &code, "0.1.0-test").await.unwrap();
        TokenFile::in_dir(self.dir.path()).save(&token).unwrap();
        SyncState { pairing: Some(pairing), ..Default::default() }.save(&SyncState::path_in(self.dir.path())).unwrap();
    }
}

/// (id, key, amount, currency, state) of every payment, by id.
fn payments(db: &Path) -> Vec<(i64, String, i64, String, String)> {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut s = c.prepare("SELECT id, idempotency_key, amount_minor, currency, state FROM payments ORDER BY id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap().map(Result::unwrap).collect()
}

/// A register of a new store with 20 captured sales and one pending payment, and a
/// checked copy of its ledger.
async fn register_with_a_copy(h: &Harness) -> (String, Register, PathBuf, Payment) {
    let store = h.owner.create_store("Backup store").await.unwrap();
    let mut reg = Register::new();
    reg.pair_as(h, &store, "Till 1").await;
    for i in 0..20 {
        reg.sell_captured(1000 + i, i * 10);
    }
    let pending = reg.pending(777, 500);
    let copy = copies::take_now(&reg.db(), copies::DEFAULT_KEEP).unwrap().path;
    (store, reg, copy, pending)
}

#[tokio::test]
async fn a_copy_sent_fetched_opened_and_restored_gives_every_payment_back() {
    let h = Harness::start().await;
    let (store, reg, copy, pending) = register_with_a_copy(&h).await;
    let key = BackupKey::generate();
    let sent = transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    // a ledger copy of this size is more than one chunk of 512 KiB
    assert!(sent.chunks >= 2, "{sent:?}");
    assert_eq!(sent.chunks_sent, sent.chunks);
    assert!(!Path::new(&format!("{}.sealed", copy.display())).exists(), "the sealed file goes once the back office holds it");

    // the back office holds ciphertext only: no SQLite header, no checkout key in clear
    let db = h.db().await;
    let chunks: Vec<Vec<u8>> = db.query("SELECT data FROM register_backup_chunks ORDER BY n", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    let held: Vec<u8> = chunks.concat();
    assert_eq!(held.len() as u64, sent.backup.bytes);
    let needle = pending.idempotency_key.as_bytes();
    assert!(!held.windows(needle.len()).any(|w| w == needle), "a checkout key in clear at the back office");
    assert!(!held.windows(15).any(|w| w == b"SQLite format 3"));

    // the owner sees it listed, with its size and hash
    let listed = h.owner.get(&format!("/admin/stores/{store}/backups")).await.unwrap();
    assert_eq!(listed["backups"][0]["backup_id"], sent.backup.backup_id.as_str(), "{listed}");
    assert_eq!(listed["backups"][0]["sha256"], sent.backup.sha256.as_str());
    assert_eq!(listed["backups"][0]["register_id"], reg.register_id().as_str());

    // fetched, opened, checked; then restored by record 0116's path into a fresh place
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("fetched.sqlite3");
    let got = transfer::fetch(&reg.back_office(), &key, None, None, &out).await.unwrap();
    assert_eq!(got.backup, sent.backup);
    let restored_db = elsewhere.path().join("restored").join("ledger.db");
    let restored = copies::restore(&out, &restored_db).unwrap();
    assert_eq!(restored.payments, 21);
    let before = payments(&reg.db());
    assert_eq!(payments(&restored_db), before, "every payment back, each in its state");
    assert!(before.iter().any(|p| p.1 == pending.idempotency_key && p.4 == "authorizing"), "the pending payment is back with its key");
}

#[tokio::test]
async fn a_changed_byte_is_refused_by_its_tag_and_named_and_a_changed_hash_by_the_list() {
    let h = Harness::start().await;
    let (_store, reg, copy, _) = register_with_a_copy(&h).await;
    let key = BackupKey::generate();
    let sent = transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    let db = h.db().await;
    // one byte of the first segment's ciphertext changed at the back office
    let at = seal::HEADER_LEN as i32 + 100;
    db.execute("UPDATE register_backup_chunks SET data = set_byte(data, $1, get_byte(data, $1) # 1) WHERE n = 0", &[&at]).await.unwrap();
    let out = reg.dir.path().join("fetched.sqlite3");
    let e = transfer::fetch(&reg.back_office(), &key, None, None, &out).await.unwrap_err();
    assert!(matches!(e, BackupError::HashMismatch { ref expected, .. } if *expected == sent.backup.sha256), "{e:?}");
    // a breach that also rewrote the listed hash is caught by the authentication tag
    let fixed: i64 = db
        .query_one(
            "WITH h AS (SELECT backup_id, sha256(string_agg(data, ''::bytea ORDER BY n)) AS s FROM register_backup_chunks GROUP BY backup_id)
             UPDATE register_backups b SET sha256 = h.s FROM h WHERE h.backup_id = b.backup_id RETURNING 1::int8",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(fixed, 1);
    let e = transfer::fetch(&reg.back_office(), &key, None, None, &out).await.unwrap_err();
    assert!(matches!(e, BackupError::Tampered { segment: 0, at_byte } if at_byte == seal::HEADER_LEN as u64), "{e:?}");
    assert_eq!(e.code(), "backup_tampered");
    assert!(e.to_string().contains("segment 0"), "named: {e}");
    assert!(!out.exists(), "nothing is left where the copy would go");
}

#[tokio::test]
async fn a_wrong_key_is_refused_and_leaves_nothing() {
    let h = Harness::start().await;
    let (_store, reg, copy, _) = register_with_a_copy(&h).await;
    let key = BackupKey::generate();
    transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    let other = BackupKey::generate();
    let out = reg.dir.path().join("fetched.sqlite3");
    let e = transfer::fetch(&reg.back_office(), &other, None, None, &out).await.unwrap_err();
    assert!(matches!(&e, BackupError::WrongKey { sealed_with, key: tried } if *sealed_with == key.id_hex() && *tried == other.id_hex()), "{e:?}");
    assert_eq!(e.code(), "backup_wrong_key");
    assert!(!out.exists());
}

#[tokio::test]
async fn a_copy_larger_than_the_back_office_keeps_is_refused_with_its_own_code() {
    let limits = Limits { backups: BackupLimits { max_bytes: 4096, ..BackupLimits::default() }, ..Limits::default() };
    let h = Harness::with_limits(limits).await;
    let (_store, reg, copy, _) = register_with_a_copy(&h).await;
    let e = transfer::send(&reg.back_office(), &BackupKey::generate(), &copy, T0).await.unwrap_err();
    assert!(matches!(e, BackupError::TooLarge { bytes, max: 4096 } if bytes > 4096), "{e:?}");
    assert_eq!(e.code(), "backup_too_large");
    assert_eq!(h.count("SELECT count(*) FROM register_backups").await, 0, "nothing stored");
}

#[tokio::test]
async fn only_the_register_or_its_replacement_reads_its_copies() {
    let h = Harness::start().await;
    let (store, reg, copy, _) = register_with_a_copy(&h).await;
    let key = BackupKey::generate();
    let sent = transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    let id = reg.register_id();

    // another register of the same store, in service: refused, even with the key
    let other = Register::new();
    other.pair_as(&h, &store, "Till 2").await;
    let out = other.dir.path().join("fetched.sqlite3");
    for e in [
        transfer::list(&other.back_office(), Some(&id)).await.unwrap_err(),
        transfer::fetch(&other.back_office(), &key, Some(&id), Some(&sent.backup.backup_id), &out).await.unwrap_err(),
    ] {
        assert!(matches!(&e, BackupError::Sync(paydesk_sync::SyncError::Refused(r)) if r.code == "register_in_service"), "{e:?}");
    }
    // a register of another store: its store has no such register
    let stranger_store = h.owner.create_store("Another store").await.unwrap();
    let stranger = Register::new();
    stranger.pair_as(&h, &stranger_store, "Till 1").await;
    let e = transfer::list(&stranger.back_office(), Some(&id)).await.unwrap_err();
    assert!(matches!(&e, BackupError::Sync(paydesk_sync::SyncError::Refused(r)) if r.code == "not_found"), "{e:?}");
    // its chunks by id, without the list: the copy is not in the stranger's store
    let r = reqwest::Client::new()
        .get(format!("{}/v1/backups/{}/chunks/0", h.url, sent.backup.backup_id))
        .bearer_auth(TokenFile::in_dir(stranger.dir.path()).load().unwrap().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    assert!(!out.exists());

    // the owner marks the first register replaced: the replacement, holding the key, restores it
    h.owner.post(&format!("/admin/stores/{store}/registers/{id}/replace"), &serde_json::json!({})).await.unwrap();
    let got = transfer::fetch(&other.back_office(), &key, Some(&id), None, &out).await.unwrap();
    assert_eq!(got.copy.payments, 21);
    let restored_db = other.dir.path().join("restored").join("ledger.db");
    copies::restore(&out, &restored_db).unwrap();
    assert_eq!(payments(&restored_db), payments(&reg.db()));
}

#[tokio::test]
async fn an_upload_cut_off_resumes_and_only_the_newest_copies_are_kept() {
    let limits = Limits { backups: BackupLimits { keep: 2, ..BackupLimits::default() }, ..Limits::default() };
    let h = Harness::with_limits(limits).await;
    let (_store, mut reg, copy, _) = register_with_a_copy(&h).await;
    let key = BackupKey::generate();
    // sealed and declared, then cut off before its chunk went up
    let sealed_path = PathBuf::from(format!("{}.sealed", copy.display()));
    let sealed = seal::seal(&key, &copy, &sealed_path).unwrap();
    let token = TokenFile::in_dir(reg.dir.path()).load().unwrap().unwrap();
    let declared: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/v1/backups", h.url))
        .bearer_auth(&token)
        .json(&serde_json::json!({"v": 1, "bytes": sealed.bytes, "sha256": sealed.sha256, "taken_ms": T0}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!((declared["next_chunk"].as_u64(), declared["complete"].as_bool()), (Some(0), Some(false)), "{declared}");
    // ... and its first chunk went up before the cut
    let id = declared["backup_id"].as_str().unwrap();
    let first = std::fs::read(&sealed_path).unwrap()[..BACKUP_CHUNK_BYTES as usize].to_vec();
    let r = reqwest::Client::new()
        .put(format!("{}/v1/backups/{id}/chunks/0", h.url))
        .bearer_auth(&token)
        .json(&serde_json::json!({"v": 1, "data": base64::engine::general_purpose::STANDARD.encode(&first)}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let sent = transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    assert_eq!(sent.backup.backup_id, declared["backup_id"].as_str().unwrap(), "the same upload went on");
    assert_eq!(sent.backup.sha256, sealed.sha256, "the sealed file kept was sent, not a new one");
    // sent again: already whole, nothing goes up
    let again = transfer::send(&reg.back_office(), &key, &copy, T0).await.unwrap();
    assert_eq!((again.backup.backup_id.as_str(), again.chunks_sent), (sent.backup.backup_id.as_str(), 0), "the same copy sealed again is the same file: not stored twice");

    // two newer copies: the oldest goes
    for i in 1..=2 {
        reg.sell_captured(5000, 1000 * i);
        let c = copies::take(&reg.db(), copies::DEFAULT_KEEP, T0 + 60_000 * i).unwrap().path;
        transfer::send(&reg.back_office(), &key, &c, T0 + 60_000 * i).await.unwrap();
    }
    let l = transfer::list(&reg.back_office(), None).await.unwrap();
    assert_eq!(l.backups.iter().map(|b| b.taken_ms).collect::<Vec<_>>(), vec![T0 + 120_000, T0 + 60_000]);
    assert_eq!(h.count("SELECT count(DISTINCT backup_id) FROM register_backup_chunks").await, 2, "the pruned copy's chunks went with it");
}
