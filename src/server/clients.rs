//! Per-client limits: one client (an API key, else an address) may have at most so many
//! search requests and so many query bases (k-mers, plus k − 1 a query) in flight at once; a request beyond either is
//! answered 429 with `Retry-After` at once, before it waits for anything, so one heavy user
//! cannot fill the queue that every other user waits in (issue 34).
//!
//! A request alone is always let in whatever its size (the server's own limits bound it):
//! the bases limit bounds what a client adds while it already has work in flight.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;

/// The header that names a client when it sends one (otherwise its address does).
pub(crate) const API_KEY_HEADER: &str = "x-api-key";

/// Who a request comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ClientId {
    /// The API key it sent.
    Key(String),
    /// Its address, when it sent no key.
    Address(IpAddr),
}

impl ClientId {
    /// The client of a request with `headers` from `address` (`None`: unknown, as in tests
    /// that serve the router without a socket; all such requests are one client).
    pub(crate) fn of(headers: &HeaderMap, address: Option<IpAddr>) -> ClientId {
        match headers.get(API_KEY_HEADER).and_then(|v| v.to_str().ok()) {
            Some(key) if !key.is_empty() => ClientId::Key(key.to_string()),
            _ => ClientId::Address(address.unwrap_or(IpAddr::from([0, 0, 0, 0]))),
        }
    }
}

/// What one client may have in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientLimits {
    /// Search requests.
    pub requests_max: usize,
    /// Query bases.
    pub bases_max: u64,
}

/// Default search requests one client may have in flight.
pub const CLIENT_REQUESTS_DEFAULT: usize = 16;
/// Default query bases one client may have in flight beside its first request: two panels
/// of 800 genes.
pub const CLIENT_BASES_DEFAULT: u64 = 2_000_000;

impl Default for ClientLimits {
    fn default() -> Self {
        ClientLimits {
            requests_max: CLIENT_REQUESTS_DEFAULT,
            bases_max: CLIENT_BASES_DEFAULT,
        }
    }
}

/// Why a client's request was turned away.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClientRefusal {
    /// Too many requests of its own in flight.
    #[error("this client already has {in_flight} search requests in flight (at most {max} at once); retry when one is answered")]
    Requests {
        /// Its requests in flight.
        in_flight: usize,
        /// The limit.
        max: usize,
    },
    /// Too many query bases of its own in flight.
    #[error("this client already has {in_flight} query bases in flight and asked for {asked} more (at most {max} at once); retry when one is answered")]
    Bases {
        /// Its bases in flight.
        in_flight: u64,
        /// This request's.
        asked: u64,
        /// The limit.
        max: u64,
    },
}

#[derive(Debug, Default)]
struct Usage {
    requests: usize,
    bases: u64,
}

/// Every client's requests in flight; see the module documentation.
#[derive(Debug)]
pub(crate) struct Clients {
    limits: ClientLimits,
    usage: Mutex<HashMap<ClientId, Usage>>,
}

/// A request's place among its client's; given back when dropped.
#[derive(Debug)]
pub(crate) struct ClientLease {
    clients: Arc<Clients>,
    id: ClientId,
    bases: u64,
}

impl Clients {
    pub(crate) fn new(limits: ClientLimits) -> Arc<Clients> {
        Arc::new(Clients {
            limits,
            usage: Mutex::new(HashMap::new()),
        })
    }

    /// Lets a request of `bases` from `id` in, or says why not.
    pub(crate) fn admit(
        self: &Arc<Self>,
        id: ClientId,
        bases: u64,
    ) -> Result<ClientLease, ClientRefusal> {
        let mut usage = lock(&self.usage);
        let mine = usage.entry(id.clone()).or_default();
        if mine.requests >= self.limits.requests_max.max(1) {
            return Err(ClientRefusal::Requests {
                in_flight: mine.requests,
                max: self.limits.requests_max.max(1),
            });
        }
        if mine.requests > 0 && mine.bases.saturating_add(bases) > self.limits.bases_max {
            return Err(ClientRefusal::Bases {
                in_flight: mine.bases,
                asked: bases,
                max: self.limits.bases_max,
            });
        }
        mine.requests += 1;
        mine.bases += bases;
        Ok(ClientLease {
            clients: self.clone(),
            id,
            bases,
        })
    }

    /// Clients with requests in flight now.
    pub(crate) fn active(&self) -> usize {
        lock(&self.usage).len()
    }
}

impl Drop for ClientLease {
    fn drop(&mut self) {
        let mut usage = lock(&self.clients.usage);
        if let Some(mine) = usage.get_mut(&self.id) {
            mine.requests -= 1;
            mine.bases -= self.bases;
            if mine.requests == 0 {
                usage.remove(&self.id);
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_held_to_its_requests_and_bases_others_are_not() {
        let clients = Clients::new(ClientLimits {
            requests_max: 2,
            bases_max: 1_000,
        });
        let a = || ClientId::Key("a".into());
        let b = ClientId::Address(IpAddr::from([10, 0, 0, 1]));
        // Alone, a request larger than the bases limit is let in.
        let big = clients.admit(a(), 5_000).unwrap();
        assert!(matches!(
            clients.admit(a(), 10),
            Err(ClientRefusal::Bases {
                in_flight: 5_000,
                ..
            })
        ));
        let other = clients.admit(b.clone(), 5_000).unwrap();
        drop(big);
        let first = clients.admit(a(), 600).unwrap();
        let second = clients.admit(a(), 400).unwrap();
        assert!(matches!(
            clients.admit(a(), 0),
            Err(ClientRefusal::Requests {
                in_flight: 2,
                max: 2
            })
        ));
        assert_eq!(clients.active(), 2);
        drop((first, second, other));
        assert_eq!(
            clients.active(),
            0,
            "clients with nothing in flight are forgotten"
        );
    }

    #[test]
    fn a_key_names_the_client_else_its_address() {
        let address = Some(IpAddr::from([192, 0, 2, 7]));
        let mut headers = HeaderMap::new();
        assert_eq!(
            ClientId::of(&headers, address),
            ClientId::Address(IpAddr::from([192, 0, 2, 7]))
        );
        headers.insert(API_KEY_HEADER, "lab-3".parse().unwrap());
        assert_eq!(
            ClientId::of(&headers, address),
            ClientId::Key("lab-3".into())
        );
    }
}
