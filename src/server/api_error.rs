//! The error answer of the API: a status, a message naming the problem, and what the metrics
//! count it as. The request's parsing and the handlers both answer with it.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::body::BodyError;
use super::metrics::Rejection;

/// An error answer: status and a message naming the problem.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(super) status: StatusCode,
    pub(super) message: String,
    retry_after_seconds: Option<u64>,
    /// The metrics reason, when the status alone does not say it.
    reason: Option<Rejection>,
}

impl ApiError {
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after_seconds: None,
            reason: None,
        }
    }

    /// 503 for an index that cannot be searched: not worth retrying until it is fixed.
    pub(super) fn index_unavailable(message: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message);
        error.reason = Some(Rejection::IndexUnavailable);
        error
    }

    /// The answer to a search whose reads failed: 503 when a remote file `changed` on its
    /// server since it was opened (the index changed, as a local file changed on disk is, and
    /// the server reopens it in the background: see [`super::AppState::reload_if_changed`]),
    /// 500 for any other failure.
    pub(super) fn read_failed(message: String, changed: bool) -> ApiError {
        if changed {
            ApiError::index_unavailable(message)
        } else {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
        }
    }

    /// The answer to a body that could not be read.
    pub(super) fn body(error: BodyError) -> ApiError {
        let (status, reason) = match error {
            BodyError::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, Rejection::TooLarge),
            BodyError::OverBudget { .. } => {
                (StatusCode::SERVICE_UNAVAILABLE, Rejection::BodyMemory)
            }
            BodyError::TimedOut { .. } => (StatusCode::REQUEST_TIMEOUT, Rejection::BodyTimeout),
            BodyError::Aborted { .. } => (StatusCode::BAD_REQUEST, Rejection::ClientAborted),
        };
        let mut answer = ApiError::new(status, error.to_string());
        answer.reason = Some(reason);
        if status == StatusCode::SERVICE_UNAVAILABLE {
            answer.retry_after_seconds = Some(1);
        }
        answer
    }

    /// 429 for a client over its share ([`super::clients`]).
    pub(super) fn client_limit(refusal: super::clients::ClientRefusal) -> ApiError {
        let mut error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, refusal.to_string());
        error.retry_after_seconds = Some(1);
        error.reason = Some(Rejection::ClientLimit);
        error
    }

    pub(super) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub(super) fn rejection(&self) -> Option<Rejection> {
        if self.reason.is_some() {
            return self.reason;
        }
        match self.status {
            StatusCode::BAD_REQUEST => Some(Rejection::BadRequest),
            StatusCode::PAYLOAD_TOO_LARGE => Some(Rejection::TooLarge),
            StatusCode::SERVICE_UNAVAILABLE => Some(Rejection::Overload),
            StatusCode::GATEWAY_TIMEOUT => Some(Rejection::Timeout),
            _ => None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message, "status": self.status.as_u16() });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after_seconds {
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// 503 for a search that found every search worker busy and the queue full.
pub(super) fn at_capacity() -> ApiError {
    let mut error = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is at capacity; retry in a moment",
    );
    error.retry_after_seconds = Some(1);
    error
}
