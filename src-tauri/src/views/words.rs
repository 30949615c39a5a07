//! Small closed vocabularies the screens receive as words and compare with (issue #31,
//! record 0104): each is a [`wire_enum!`], so ui/contract.js lists exactly what Rust can
//! send and the UI compares with its constants, never with a literal typed again.

use paydesk_register::ReaderOutcome;

use super::Tone;

wire_enum! {
    /// How the back-office link stands (the status-bar pill, Settings → Back office).
    pub enum BackofficeLink {
        NotPaired => "not_paired",
        Synced => "synced",
        Sending => "sending",
        Unreachable => "unreachable",
        Error => "error",
    }
}

wire_enum! {
    /// Whether the back office confirmed the audit chain's head (record 0053).
    pub enum AuditConfirmation {
        Confirmed => "confirmed",
        /// Paired, not confirmed yet.
        Never => "never",
        NoBackOffice => "no_back_office",
    }
}

wire_enum! {
    /// Which drawer report: the open shift's X, or a closed shift's Z.
    pub enum DrawerReportKind {
        X => "x",
        Z => "z",
    }
}

wire_enum! {
    /// The PSP in use: the one built in (test mode) or a real one at a URL.
    pub enum PspKind {
        Embedded => "embedded",
        External => "external",
    }
}

wire_enum! {
    /// Where the PSP's secret key is kept.
    pub enum KeyStorage {
        Keychain => "keychain",
        File => "file",
    }
}

wire_enum! {
    /// How the sending of the encrypted copies to the back office stands (record 0150),
    /// for the About panel: decided from the send's typed error, never from its text.
    pub enum CopySendState {
        /// The owner turned `backup_send` off.
        Off => "off",
        /// No back office to send to.
        NotPaired => "not_paired",
        /// Paired and on; no copy sent yet (the first goes after the next copy).
        NotYet => "not_yet",
        Sending => "sending",
        /// The back office holds the newest copy whole.
        Sent => "sent",
        /// The back office could not be reached: tried again after the next copy.
        Unreachable => "unreachable",
        /// The back office refused the copy (its code is shown).
        Refused => "refused",
        /// The send failed here (the key, the copy, a bad answer): its code is shown.
        Failed => "failed",
    }
}

wire_enum! {
    /// When saved settings take effect (the reply to save_settings).
    pub enum AppliedWhen {
        Unchanged => "unchanged",
        Now => "now",
        Waiting => "waiting",
    }
}

wire_enum! {
    /// What canceling a sale does to one of its card tenders.
    pub enum CancelLineKind {
        Refund => "refund",
        Void => "void",
    }
}

wire_enum! {
    /// A reader payment's `outcome.kind` (the engine's tagged `ReaderOutcome`), listed
    /// for the contract: [`ReaderKind::of`] is exhaustive, and a test checks that serde's
    /// tag is this word.
    pub enum ReaderKind {
        Paid => "paid",
        Authorized => "authorized",
        WaitingForCard => "waiting_for_card",
        NotCharged => "not_charged",
        Pending => "pending",
        ReaderBusy => "reader_busy",
        ReaderUnavailable => "reader_unavailable",
    }
}

impl ReaderKind {
    pub fn of(o: ReaderOutcome) -> ReaderKind {
        match o {
            ReaderOutcome::Paid => ReaderKind::Paid,
            ReaderOutcome::Authorized => ReaderKind::Authorized,
            ReaderOutcome::WaitingForCard => ReaderKind::WaitingForCard,
            ReaderOutcome::NotCharged { .. } => ReaderKind::NotCharged,
            ReaderOutcome::Pending { .. } => ReaderKind::Pending,
            ReaderOutcome::ReaderBusy => ReaderKind::ReaderBusy,
            ReaderOutcome::ReaderUnavailable { .. } => ReaderKind::ReaderUnavailable,
        }
    }

    /// The reader panel's colour: money taken is ok, nothing charged (or no reader) is
    /// bad, a card awaited is info, anything unsure is warn. Decided here so the UI
    /// decides nothing from the kind (it was a JS switch with a default arm).
    pub fn tone(self) -> Tone {
        match self {
            ReaderKind::Paid | ReaderKind::Authorized => Tone::Ok,
            ReaderKind::NotCharged | ReaderKind::ReaderUnavailable => Tone::Bad,
            ReaderKind::WaitingForCard => Tone::Info,
            ReaderKind::Pending | ReaderKind::ReaderBusy => Tone::Warn,
        }
    }
}
