//! One etcd client per endpoint, so that the lease thread chooses which member answers: a
//! request that does not answer in time on one endpoint is sent again on another, and a
//! client whose connection failed is made anew.

use std::time::Duration;

use etcd_client::{Client, ConnectOptions};
use tokio::time::timeout;

/// The endpoints and their clients, made on first use.
pub(super) struct Endpoints {
    urls: Vec<String>,
    clients: Vec<Option<Client>>,
    /// The endpoint that last answered in time: the first one asked.
    preferred: usize,
    connect_timeout: Duration,
}

impl Endpoints {
    pub(super) fn new(urls: &[String], connect_timeout: Duration) -> Self {
        Endpoints {
            urls: urls.to_vec(),
            clients: vec![None; urls.len()],
            preferred: 0,
            connect_timeout,
        }
    }

    /// How many endpoints there are (at least one: the configuration is checked).
    pub(super) fn len(&self) -> usize {
        self.urls.len()
    }

    /// Endpoint `index`'s URL, for events.
    #[cfg_attr(not(feature = "tracing"), allow(dead_code))]
    pub(super) fn url(&self, index: usize) -> &str {
        &self.urls[index]
    }

    /// The endpoint asked first.
    pub(super) fn preferred(&self) -> usize {
        self.preferred
    }

    /// The endpoint after `index`, in the configured order, wrapping around.
    pub(super) fn after(&self, index: usize) -> usize {
        (index + 1) % self.len()
    }

    /// Asks `index` first from now on; whether that is a switch.
    pub(super) fn prefer(&mut self, index: usize) -> bool {
        let switched = self.preferred != index;
        self.preferred = index;
        switched
    }

    /// A client of endpoint `index`, connecting it if it has none. A client is a handle on a
    /// shared connection: cloning it is cheap, and requests on clones run side by side.
    pub(super) async fn client(&mut self, index: usize) -> Result<Client, String> {
        if let Some(client) = &self.clients[index] {
            return Ok(client.clone());
        }
        let options = ConnectOptions::new().with_connect_timeout(self.connect_timeout);
        let url = [self.urls[index].as_str()];
        let client = match timeout(self.connect_timeout, Client::connect(url, Some(options))).await
        {
            Ok(Ok(client)) => client,
            Ok(Err(err)) => return Err(err.to_string()),
            Err(_) => return Err(format!("no connection within {:?}", self.connect_timeout)),
        };
        self.clients[index] = Some(client.clone());
        Ok(client)
    }

    /// Drops endpoint `index`'s client after a failure: the next request connects anew
    /// (requests in flight keep the old connection until they end).
    pub(super) fn forget(&mut self, index: usize) {
        self.clients[index] = None;
    }
}
