//! An axum service that shares one generator among its handlers: `POST /orders` mints an ID
//! with `mint_async` and stores the order in PostgreSQL, `GET /orders?from_ms=..&to_ms=..`
//! pages through a time window by ID bounds alone (keyset pagination on the primary key).
//!
//! The generator is built once in `main` and shared through the router's state, an `Arc`
//! (a `static` in a `OnceLock` serves as well: `snowmint::docs::throughput`, "One generator
//! for every task"). The example then drives its own service: concurrent tasks post orders,
//! and it pages through them and checks each came back once, in minting order.
//!
//! It connects to `SNOWMINT_PG_URL` (`.ci/check` starts a private PostgreSQL and sets it);
//! without it the example says so and exits. Run from `db-tests/` with
//! `SNOWMINT_PG_URL=postgres://postgres@127.0.0.1:5432/postgres cargo run --example axum_service`.

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde::Deserialize;
use snowmint::tokio::MintAsync;
use snowmint::{Generator, Id, Layout};
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What every handler shares: one generator for the node, one connection pool.
struct App {
    generator: Generator,
    pool: PgPool,
}

/// A page of `GET /orders`: the window `[from_ms, to_ms)`, after the cursor `after` (the last
/// ID of the previous page).
#[derive(Deserialize)]
struct Window {
    from_ms: u64,
    to_ms: u64,
    after: Option<Id>,
    limit: Option<i64>,
}

type Reply = Result<String, (StatusCode, String)>;

fn bad<E: std::fmt::Display>(status: StatusCode) -> impl FnOnce(E) -> (StatusCode, String) {
    move |err| (status, err.to_string())
}

/// `POST /orders`: mints the order's ID (waiting on Tokio's timer, not the thread, when the
/// tick is full) and stores it; answers the ID.
async fn create(State(app): State<Arc<App>>, body: String) -> Reply {
    let id = app
        .generator
        .mint_async()
        .await
        .map_err(bad(StatusCode::SERVICE_UNAVAILABLE))?;
    sqlx::query("INSERT INTO snowmint_example_orders (id, body) VALUES ($1, $2)")
        .bind(id)
        .bind(body)
        .execute(&app.pool)
        .await
        .map_err(bad(StatusCode::INTERNAL_SERVER_ERROR))?;
    Ok(id.to_string())
}

/// `GET /orders`: one page of the window, a line `<id> <body>` per order, in ID (and so
/// minting) order. The window's bounds are IDs: `min_id_at(from_ms) <= id < min_id_at(to_ms)`.
async fn list(State(app): State<Arc<App>>, Query(window): Query<Window>) -> Reply {
    let layout = app.generator.layout();
    let lower = layout
        .min_id_at(window.from_ms)
        .map_err(bad(StatusCode::BAD_REQUEST))?;
    let upper = layout
        .min_id_at(window.to_ms)
        .map_err(bad(StatusCode::BAD_REQUEST))?;
    // After the cursor: every ID above it, so the first page starts at `lower`.
    let lower = window
        .after
        .map_or(lower, |after| lower.max(Id::from_u64(after.to_u64() + 1)));
    let rows: Vec<(Id, String)> = sqlx::query_as(
        "SELECT id, body FROM snowmint_example_orders WHERE id >= $1 AND id < $2 \
         ORDER BY id LIMIT $3",
    )
    .bind(lower)
    .bind(upper)
    .bind(window.limit.unwrap_or(100))
    .fetch_all(&app.pool)
    .await
    .map_err(bad(StatusCode::INTERNAL_SERVER_ERROR))?;
    Ok(rows
        .iter()
        .map(|(id, body)| format!("{id} {body}\n"))
        .collect())
}

/// One HTTP/1.1 request to the service; the response's body (a plain client keeps the example
/// to axum and Tokio).
async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("the service listens");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response
        .split_once("\r\n\r\n")
        .expect("a complete response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    body.to_owned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let Some(url) = std::env::var("SNOWMINT_PG_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
    else {
        println!("skipped: set SNOWMINT_PG_URL to a PostgreSQL server's URL to run this example");
        return Ok(());
    };
    let pool = PgPool::connect(&url).await?;
    sqlx::query("DROP TABLE IF EXISTS snowmint_example_orders")
        .execute(&pool)
        .await?;
    sqlx::query("CREATE TABLE snowmint_example_orders (id BIGINT PRIMARY KEY, body TEXT NOT NULL)")
        .execute(&pool)
        .await?;

    // One generator per node (its node ID from the fleet: `snowmint::docs::fleets`), shared by
    // every handler on every worker thread: it is `Sync`, so an `Arc` is all it needs.
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 7)
        .build()?;
    // The window starts a second before the first order (the wall clock and the generator's
    // clock may differ by a few milliseconds).
    let start_ms =
        u64::try_from(SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis())? - 1_000;
    let app = Arc::new(App { generator, pool });
    let router = Router::new()
        .route("/orders", post(create).get(list))
        .with_state(Arc::clone(&app));
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });

    // 8 clients post 25 orders each, at once.
    let clients: Vec<_> = (0..8)
        .map(|client| {
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for n in 0..25 {
                    let body = format!("client-{client}-order-{n}");
                    ids.push(request(addr, "POST", "/orders", &body).await.parse::<Id>());
                }
                ids
            })
        })
        .collect();
    let mut posted = Vec::new();
    for client in clients {
        for id in client.await? {
            posted.push(id?);
        }
    }
    posted.sort();

    // Page through the window from before the first order to after the last, 32 at a time.
    let end_ms = app.generator.decode(posted[posted.len() - 1])?.unix_ms() + 1;
    let mut listed = Vec::new();
    let mut pages = 0;
    let mut after = String::new();
    loop {
        let path = format!("/orders?from_ms={start_ms}&to_ms={end_ms}&limit=32{after}");
        let page = request(addr, "GET", &path, "").await;
        let ids: Vec<Id> = page
            .lines()
            .map(|line| line.split_once(' ').expect("<id> <body>").0.parse())
            .collect::<Result<_, _>>()?;
        let Some(last) = ids.last() else { break };
        after = format!("&after={last}");
        listed.extend(ids);
        pages += 1;
    }
    // Every order once, in ID order: the window's bounds and the cursor lose none.
    assert_eq!(listed, posted);
    println!(
        "{} orders from 8 concurrent clients, listed back in {pages} pages of the window \
         {start_ms}..{end_ms} ms by ID bounds",
        listed.len()
    );

    sqlx::query("DROP TABLE snowmint_example_orders")
        .execute(&app.pool)
        .await?;
    Ok(())
}
