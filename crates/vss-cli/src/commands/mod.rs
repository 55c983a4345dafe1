//! One module per `vss` subcommand group.

pub mod bench;
pub mod card;
pub mod cred;
pub mod demo;
pub mod ecdsa;
pub mod engine;
pub mod filter;
pub mod gn;
pub mod hsm;
pub mod its;
pub mod kem;
pub mod keys;
pub mod pki;
pub mod selftest;
pub(crate) mod signal;
pub mod station;
pub mod station_trust;
pub mod stats;
pub mod testbed;
pub mod tls;

/// How long a call of `vssd` (`--daemon SOCKET`) may take, connecting included: 30 s.
const DAEMON_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A client of `vssd`, as `--daemon SOCKET` calls it.
pub(crate) type DaemonClient =
    vss_proto::proto::security_entity_client::SecurityEntityClient<tonic::transport::Channel>;

/// Calls `vssd` on the Unix socket `socket` in a runtime of this command's own; a status
/// the daemon answers with, or no answer within [`DAEMON_TIMEOUT`], is an error.
pub(crate) fn call_daemon<T, F, Fut>(socket: &std::path::Path, call: F) -> anyhow::Result<T>
where
    F: FnOnce(DaemonClient) -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::anyhow!("no runtime for the call of vssd: {e}"))?;
    runtime.block_on(async {
        let exchange = async {
            let client = vss_proto::client::connect(socket).await?;
            call(client).await.map_err(|status| {
                anyhow::anyhow!(
                    "vssd at {} answered {:?}: {}",
                    socket.display(),
                    status.code(),
                    status.message()
                )
            })
        };
        match tokio::time::timeout(DAEMON_TIMEOUT, exchange).await {
            Ok(answer) => Ok(answer?.into_inner()),
            Err(_) => Err(anyhow::anyhow!(
                "vssd at {} did not answer within {DAEMON_TIMEOUT:?}",
                socket.display()
            )),
        }
    })
}
