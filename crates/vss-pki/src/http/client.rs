//! The client side of the HTTP transport: posting a request message to an authority, the
//! AA's [`EaLink`] to an EA over HTTP, and getting a list from a distribution centre.

use std::net::{IpAddr, SocketAddr};
use std::sync::OnceLock;
use std::time::Duration;

use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::is_media_type;
use super::server::{CODE_HEADER, REQUEST_TYPE, RESPONSE_TYPE};
use crate::authority::EaLink;
use crate::messages::MAX_MESSAGE_LEN;

/// Why a post did not return a response message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// The authority could not open the request and says why (its response code).
    #[error("{url}: refused, {code}")]
    Refused {
        /// Where it was posted.
        url: String,
        /// The response code the authority named.
        code: String,
    },
    /// Any other HTTP status.
    #[error("{url}: HTTP {status}: {body}")]
    Status {
        /// Where it was posted.
        url: String,
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// No connection could be made (refused, no such host): the request was not sent, so
    /// another instance of the authority may be asked.
    #[error("{url}: cannot connect: {detail}")]
    Unreachable {
        /// Where it was to go.
        url: String,
        /// Why.
        detail: String,
    },
    /// The authority could not be reached or the transfer failed.
    #[error("{url}: {detail}")]
    Transport {
        /// Where it was posted.
        url: String,
        /// What failed.
        detail: String,
    },
}

/// Resolves an IP literal in place and any other host as ureq does. ureq's own resolver
/// starts a thread per call when a timeout is set, even for a literal (and a kept-alive
/// connection); a PKI's authorities are usually named by address.
#[derive(Debug, Default)]
struct LiteralFirst(DefaultResolver);

impl Resolver for LiteralFirst {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri
            .host()
            .map(|h| h.trim_start_matches('[').trim_end_matches(']'));
        let port = uri
            .port_u16()
            .or_else(|| (uri.scheme_str() == Some("http")).then_some(80));
        match (host.and_then(|h| h.parse::<IpAddr>().ok()), port) {
            (Some(ip), Some(port)) => {
                let mut addresses = self.empty();
                addresses.push(SocketAddr::new(ip, port));
                Ok(addresses)
            }
            _ => self.0.resolve(uri, config, timeout),
        }
    }
}

/// One agent per process, so connections are kept alive between requests.
fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build();
        ureq::Agent::with_parts(config, DefaultConnector::default(), LiteralFirst::default())
    })
}

/// The error of a call to `url` that got no response: [`HttpError::Unreachable`] when no
/// connection was made, else [`HttpError::Transport`].
fn no_response(url: &str, error: ureq::Error) -> HttpError {
    let (url, detail) = (url.to_string(), error.to_string());
    match error {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => {
            HttpError::Unreachable { url, detail }
        }
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            HttpError::Unreachable { url, detail }
        }
        _ => HttpError::Transport { url, detail },
    }
}

/// Posts `request` to `url` as `application/x-its-request`; the response message.
pub fn post(url: &str, request: &[u8]) -> Result<Vec<u8>, HttpError> {
    let transport = |detail: String| HttpError::Transport {
        url: url.to_string(),
        detail,
    };
    let mut response = agent()
        .post(url)
        .header("content-type", REQUEST_TYPE)
        .send(request)
        .map_err(|e| no_response(url, e))?;
    let status = response.status().as_u16();
    let code = response
        .headers()
        .get(CODE_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_MESSAGE_LEN as u64)
        .read_to_vec()
        .map_err(|e| transport(e.to_string()))?;
    match (status, code) {
        (200, _) if is_media_type(&content_type, RESPONSE_TYPE) => Ok(body),
        (400, Some(code)) => Err(HttpError::Refused {
            url: url.to_string(),
            code,
        }),
        (status, _) => Err(HttpError::Status {
            url: url.to_string(),
            status,
            body: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
        }),
    }
}

/// Gets a list from a distribution centre (see [`super::list_url`]): its bytes, at most
/// [`super::MAX_LIST_FILE`]; any status but 200 is an error.
pub fn get_list(url: &str) -> Result<Vec<u8>, HttpError> {
    let transport = |detail: String| HttpError::Transport {
        url: url.to_string(),
        detail,
    };
    let mut response = agent().get(url).call().map_err(|e| no_response(url, e))?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(super::MAX_LIST_FILE)
        .read_to_vec()
        .map_err(|e| transport(e.to_string()))?;
    if status == 200 {
        return Ok(body);
    }
    Err(HttpError::Status {
        url: url.to_string(),
        status,
        body: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
    })
}

/// An EA reached over HTTP at `<base>/ea/authorization-validation`, at one base or at the
/// first of several that can be connected to.
pub struct HttpEaLink {
    urls: Vec<String>,
}

fn validation_url(base: &str) -> String {
    format!("{}/ea/authorization-validation", base.trim_end_matches('/'))
}

impl HttpEaLink {
    /// The EA whose service is at `base` (e.g. `http://127.0.0.1:8080`).
    pub fn new(base: &str) -> Self {
        HttpEaLink::with_failover(&[base.to_string()])
    }

    /// One EA served by several processes at `bases`, asked in order: a request goes to
    /// the next one only when the one before could not be connected to (it was not sent, so
    /// no EA has seen it).
    pub fn with_failover(bases: &[String]) -> Self {
        HttpEaLink {
            urls: bases.iter().map(|b| validation_url(b)).collect(),
        }
    }
}

impl EaLink for HttpEaLink {
    fn validate(&self, request: &[u8]) -> Result<Vec<u8>, String> {
        let mut unreachable = Vec::new();
        for url in &self.urls {
            match post(url, request) {
                Err(e @ HttpError::Unreachable { .. }) => unreachable.push(e.to_string()),
                answer => return answer.map_err(|e| e.to_string()),
            }
        }
        Err(format!(
            "no EA could be reached: {}",
            unreachable.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(url: &str) -> Vec<SocketAddr> {
        let uri: ureq::http::Uri = url.parse().expect("a URI");
        let config = ureq::config::Config::default();
        LiteralFirst::default()
            .resolve(&uri, &config, NextTimeout::default())
            .expect("resolved")
            .iter()
            .copied()
            .collect()
    }

    #[test]
    fn literals_resolve_to_themselves_and_names_through_the_system() {
        let v4: SocketAddr = "127.0.0.1:8080".parse().expect("an address");
        assert_eq!(resolved("http://127.0.0.1:8080/ea/enrolment"), vec![v4]);
        let v6: SocketAddr = "[::1]:80".parse().expect("an address");
        assert_eq!(resolved("http://[::1]/aa/authorization"), vec![v6]);
        let named = resolved("http://localhost:9/health");
        assert!(!named.is_empty() && named.iter().all(|a| a.ip().is_loopback() && a.port() == 9));
    }
}
