//! The stop signal that the server, the listeners and the streams watch.

/// Returns once `stop` turns true (or its sender is gone).
pub async fn until_stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    // The value is not needed, only that it turned true (or can no longer change).
    let _ = stop.wait_for(|stop| *stop).await;
}
