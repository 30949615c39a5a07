//! Every refusal the back office answers, as one typed enum serialized as
//! `{"error":{"code","message"}}` (record 0039). A 4xx means nothing was changed.
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Which rule a refused fact breaks (record 0040; the rules are checked in `sync/rules.rs`,
/// which re-exports this). Here, with the error that carries it, so `error` imports no
/// feature module. Matched exhaustively: a new rule names its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactRule {
    TimeOutOfRange,
    StateBackwards,
    RefundOfUnknownPayment,
    RefundOfOtherRegister,
    RefundExceedsPayment,
    TenderContradictsPayment,
    TenderContradictsSale,
    ReturnContradictsSale,
    CashRefundContradictsSale,
    StoreRefundContradictsSale,
    /// An exchange whose old sale, return or credit no ledger could have written (record 0145).
    ExchangeContradictsSale,
}

impl FactRule {
    pub const fn code(self) -> &'static str {
        match self {
            FactRule::TimeOutOfRange => "time_out_of_range",
            FactRule::StateBackwards => "state_backwards",
            FactRule::RefundOfUnknownPayment => "refund_of_unknown_payment",
            FactRule::RefundOfOtherRegister => "refund_of_other_register",
            FactRule::RefundExceedsPayment => "refund_exceeds_payment",
            FactRule::TenderContradictsPayment => "tender_contradicts_payment",
            FactRule::TenderContradictsSale => "tender_contradicts_sale",
            FactRule::ReturnContradictsSale => "return_contradicts_sale",
            FactRule::CashRefundContradictsSale => "cash_refund_contradicts_sale",
            FactRule::StoreRefundContradictsSale => "store_refund_contradicts_sale",
            FactRule::ExchangeContradictsSale => "exchange_contradicts_sale",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{message}")]
    Proto { code: &'static str, message: String },
    /// A query parameter refused (record 0146): 400 whose body also names `param`.
    #[error("{param}: {message}")]
    BadParameter { param: &'static str, message: String },
    #[error("missing or malformed credentials")]
    Unauthenticated,
    #[error("{0}")]
    Forbidden(String),
    #[error("register {register_id} was replaced by the store's owner; its token is no longer accepted (pair the replacement and restore it from this one)")]
    RegisterReplaced { register_id: uuid::Uuid },
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// A 409 with its own code: the state of what was asked about refuses it.
    #[error("{message}")]
    Refused { code: &'static str, message: String },
    #[error("{0}")]
    Unprocessable(String),
    /// A fact no register keeping its ledger's rules could have written (record 0040):
    /// 422 with the rule's own code and the seq; the body also carries `seq`.
    #[error("seq {seq}: {message}")]
    ImpossibleFact { rule: FactRule, seq: i64, message: String },
    /// Restore (record 0048): the register named is still in service (409).
    #[error("{0}")]
    RegisterInService(String),
    /// Restore: two or more replaced registers of the store have that name (409).
    #[error("{0}")]
    AmbiguousName(String),
    /// Restore: a register asked for its own history (422).
    #[error("a register cannot restore from itself")]
    RestoreFromItself,
    /// A time zone neither the registers' rule nor this database knows (record 0137).
    #[error("{0}")]
    UnknownTimeZone(String),
    /// A publish whose preview was computed against another version of its section (record
    /// 0147): someone published in between, so what the owner saw is not what would be
    /// written. 409; the body also carries `previewed` and `current`.
    #[error("the {section} changed since the preview (previewed at version {previewed}, now at {current}); preview again")]
    StalePreview { section: &'static str, previewed: u64, current: u64 },
    /// A catalog CSV refused (record 0147): 400; the body also names `row` (the file's line
    /// of records, the header being row 1) and `column` when one cell is at fault.
    #[error("{message}")]
    BadCsv { row: Option<usize>, column: Option<String>, message: String },
    #[error("{0}")]
    TooMany(String),
    #[error("the body is {0} bytes; at most {1}")]
    TooLarge(u64, usize),
    /// A register's copy larger than this back office keeps (record 0150): 413.
    #[error("a copy of {bytes} bytes is larger than this back office keeps ({max} bytes)")]
    BackupTooLarge { bytes: u64, max: u64 },
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The request's body did not arrive within this many milliseconds of its head.
    #[error("the request body did not arrive within {0} ms of its headers")]
    BodyTimeout(u64),
    #[error("the back office is busy; retry shortly")]
    Busy,
    /// Too many attempts at a secret (sign-in, pairing); retry after this many seconds.
    #[error("too many attempts; retry in {0} s")]
    Throttled(u64),
    #[error("the database is unavailable; retry shortly")]
    DbUnavailable,
    #[error("the PSP: {0}")]
    Psp(String),
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Proto { code, .. } => code,
            ApiError::BadParameter { .. } => "bad_parameter",
            ApiError::Unauthenticated => "unauthenticated",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::RegisterReplaced { .. } => "register_replaced",
            ApiError::NotFound(_) => "not_found",
            ApiError::Conflict(_) => "conflict",
            ApiError::Refused { code, .. } => code,
            ApiError::Unprocessable(_) => "unprocessable",
            ApiError::ImpossibleFact { rule, .. } => rule.code(),
            ApiError::RegisterInService(_) => "register_in_service",
            ApiError::AmbiguousName(_) => "ambiguous_name",
            ApiError::RestoreFromItself => "restore_from_itself",
            ApiError::UnknownTimeZone(_) => "unknown_time_zone",
            ApiError::StalePreview { .. } => "stale_preview",
            ApiError::BadCsv { .. } => "bad_csv",
            ApiError::TooMany(_) => "too_many",
            ApiError::TooLarge(..) => "too_large",
            ApiError::BackupTooLarge { .. } => "backup_too_large",
            ApiError::UnsupportedMediaType(_) => "unsupported_media_type",
            ApiError::BodyTimeout(_) => "request_timeout",
            ApiError::Busy => "busy",
            ApiError::Throttled(_) => "throttled",
            ApiError::DbUnavailable => "db_unavailable",
            ApiError::Psp(_) => "psp_error",
            ApiError::Internal(_) => "internal",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) | ApiError::Proto { .. } | ApiError::BadParameter { .. } | ApiError::UnknownTimeZone(_) | ApiError::BadCsv { .. } => {
                StatusCode::BAD_REQUEST
            }
            ApiError::Unauthenticated => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::RegisterReplaced { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) | ApiError::Refused { .. } | ApiError::RegisterInService(_) | ApiError::AmbiguousName(_) | ApiError::StalePreview { .. } => {
                StatusCode::CONFLICT
            }
            ApiError::Unprocessable(_) | ApiError::ImpossibleFact { .. } | ApiError::RestoreFromItself => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooMany(_) | ApiError::Throttled(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::TooLarge(..) | ApiError::BackupTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::BodyTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Busy | ApiError::DbUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Psp(_) => StatusCode::BAD_GATEWAY,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<paydesk_sync_proto::ProtoError> for ApiError {
    fn from(e: paydesk_sync_proto::ProtoError) -> Self {
        ApiError::Proto { code: e.code(), message: e.to_string() }
    }
}

impl From<deadpool_postgres::PoolError> for ApiError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        tracing::warn!("database pool: {e}");
        match e {
            deadpool_postgres::PoolError::Timeout(_) => ApiError::Busy,
            deadpool_postgres::PoolError::Backend(_)
            | deadpool_postgres::PoolError::Closed
            | deadpool_postgres::PoolError::NoRuntimeSpecified
            | deadpool_postgres::PoolError::PostCreateHook(_) => ApiError::DbUnavailable,
        }
    }
}

impl From<tokio_postgres::Error> for ApiError {
    fn from(e: tokio_postgres::Error) -> Self {
        // a statement or lock timeout is "busy", a lost connection "unavailable";
        // anything else is ours to fix, logged with its cause
        if let Some(db) = e.as_db_error() {
            let code = db.code().code();
            if code == "57014" || code == "55P03" {
                return ApiError::Busy;
            }
            // The session was ended under the request: the server shutting down or
            // restarting, an administrator's pg_terminate_backend (class 57P), or the
            // connection failing (class 08). Nothing was committed; the client retries.
            if code.starts_with("57P") || code.starts_with("08") {
                tracing::warn!("database session ended: {db}");
                return ApiError::DbUnavailable;
            }
            tracing::error!("database: {db}");
            return ApiError::Internal(db.to_string());
        }
        if e.is_closed() {
            return ApiError::DbUnavailable;
        }
        tracing::error!("database: {e}");
        ApiError::DbUnavailable
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let message = match &self {
            // the cause is in the log, not in the answer
            ApiError::Internal(_) => "internal error".to_string(),
            other => other.to_string(),
        };
        let mut body = serde_json::json!({"error": {"code": self.code(), "message": message}});
        if let ApiError::ImpossibleFact { seq, .. } = &self {
            body["error"]["seq"] = serde_json::json!(seq);
        }
        if let ApiError::BadParameter { param, .. } = &self {
            body["error"]["param"] = serde_json::json!(param);
        }
        if let ApiError::StalePreview { previewed, current, .. } = &self {
            body["error"]["previewed"] = serde_json::json!(previewed);
            body["error"]["current"] = serde_json::json!(current);
        }
        if let ApiError::BackupTooLarge { max, .. } = &self {
            body["error"]["max_bytes"] = serde_json::json!(max);
        }
        if let ApiError::BadCsv { row, column, .. } = &self {
            body["error"]["row"] = serde_json::json!(row);
            body["error"]["column"] = serde_json::json!(column);
        }
        let mut resp = (self.status(), axum::Json(body)).into_response();
        match &self {
            ApiError::Busy | ApiError::DbUnavailable | ApiError::TooMany(_) => {
                resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            ApiError::Throttled(s) => {
                resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(*s));
            }
            _ => {}
        }
        resp
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
