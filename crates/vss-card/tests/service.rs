//! The five roles of vss-cred as HTTP services on 127.0.0.1, driven over real HTTP: the
//! seed's VIP ticket issued to this crate's software card, presented with an equality, an
//! inspectable member number, a pseudonym and non-revocation; verified, inspected,
//! replayed, tampered with, revoked. (Here rather than in vss-cred, which cannot depend on
//! the card; the services' bounds are tested there.)

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use vss_card::connect::{open, CardAddress};
use vss_cred::holder::Card;
use vss_cred::issuance::{IssuanceResponse, IssuerParameters};
use vss_cred::layout::SystemDir;
use vss_cred::presentation::{Equality, InspectionRequest, PresentationPolicy};
use vss_cred::roles::{Inspector, Issuer, Revocation};
use vss_cred::service::inspector::InspectorService;
use vss_cred::service::issuer::IssuerService;
use vss_cred::service::revocation::RevocationService;
use vss_cred::service::user::{CardOpenError, CardOpener, UserConfig, UserService, APDUS_HEADER};
use vss_cred::service::verifier::VerifierService;
use vss_cred::service::{default_limits, serve, Role, MAX_BODY_LEN};

/// The software card of this crate, the only address these tests open.
fn software_cards() -> CardOpener {
    Arc::new(
        |address: &str| -> Result<Box<dyn Card + Send>, CardOpenError> {
            if address != "software" {
                return Err(format!("{address}: only the software card in tests").into());
            }
            Ok(open(&CardAddress::Software)?)
        },
    )
}

/// An HTTP answer: status, card APDUs reported, JSON body.
struct Answer {
    status: u16,
    apdus: Option<u64>,
    body: Value,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn send(url: &str, body: Option<Vec<u8>>) -> Answer {
    let agent = agent();
    let response = match body {
        Some(body) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(&body[..]),
        None => agent.get(url).call(),
    };
    let mut response = response.expect("HTTP exchange");
    let status = response.status().as_u16();
    let apdus = response
        .headers()
        .get(APDUS_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_LEN as u64)
        .read_to_string()
        .expect("body");
    let body = serde_json::from_str(&text).expect("JSON answer");
    Answer {
        status,
        apdus,
        body,
    }
}

fn post(url: &str, body: &Value) -> Answer {
    send(url, Some(serde_json::to_vec(body).expect("json")))
}

fn get(url: &str) -> Answer {
    send(url, None)
}

/// `answer` has `status`, else the test fails showing the body.
fn expect(answer: Answer, status: u16) -> Answer {
    assert_eq!(answer.status, status, "{}", answer.body);
    answer
}

/// An error answer carries `{"error": "..."}`.
fn refused(answer: Answer, status: u16) {
    let answer = expect(answer, status);
    assert!(answer.body["error"].is_string(), "{}", answer.body);
}

struct Services {
    issuer: String,
    revocation: String,
    verifier: String,
    inspector: String,
    user: String,
    parameters: IssuerParameters,
}

async fn listener() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("address");
    (listener, format!("http://{addr}"))
}

/// The roles' PIN and PUK.
const PIN: &str = "1234";
const PUK: &str = "12345678";

/// Creates the roles in `dir` and serves each on its own port.
fn start(runtime: &tokio::runtime::Runtime, root: &Path) -> Services {
    let dir = SystemDir::new(root);
    let parameters = Issuer::create(&dir.issuer(), vss_cred::scenario::vip_ticket(), PIN, PUK)
        .expect("issuer")
        .parameters()
        .clone();
    Revocation::create(&dir.revocation(), PIN, PUK).expect("revocation authority");
    Inspector::create(&dir.inspector(), PIN, PUK).expect("inspector");
    runtime.block_on(async {
        let (issuer_l, issuer) = listener().await;
        let (revocation_l, revocation) = listener().await;
        let (verifier_l, verifier) = listener().await;
        let (inspector_l, inspector) = listener().await;
        let (user_l, user) = listener().await;
        let roles = [
            (
                Role::Issuer(Arc::new(
                    IssuerService::open(&dir.issuer(), PIN, Some(revocation.clone()))
                        .expect("issuer service"),
                )),
                issuer_l,
            ),
            (
                Role::Revocation(Arc::new(
                    RevocationService::open(&dir.revocation(), PIN).expect("revocation service"),
                )),
                revocation_l,
            ),
            (
                Role::Verifier(Arc::new(VerifierService::open(
                    &dir.verifier(),
                    vec![parameters.clone()],
                    Some(revocation.clone()),
                ))),
                verifier_l,
            ),
            (
                Role::Inspector(Arc::new(
                    InspectorService::open(&dir.inspector(), PIN).expect("inspector service"),
                )),
                inspector_l,
            ),
            (
                Role::User(Arc::new(UserService::new(UserConfig {
                    opener: software_cards(),
                    card: None,
                    pin: None,
                    issuers: vec![parameters.clone()],
                    revocation: Some(revocation.clone()),
                }))),
                user_l,
            ),
        ];
        for (role, listener) in roles {
            tokio::spawn(serve(role, listener, default_limits()));
        }
        Services {
            issuer,
            revocation,
            verifier,
            inspector,
            user,
            parameters,
        }
    })
}

fn john() -> Value {
    json!({"attributes": [
        ["first_name", "John"],
        ["last_name", "Dow"],
        ["birthday", "1985-05-05Z"],
        ["member_number", "23784638726"],
        ["matchday", "2013-08-07Z"],
    ]})
}

/// The gate's policy template: matchday by equality, the member number for the
/// inspector, the gate's pseudonym; no nonce (the verifier puts one in) and no revocation
/// state (the verifier fetches it).
fn gate_template(s: &Services) -> Value {
    let inspector = get(&format!("{}/public", s.inspector));
    let inspector = serde_json::from_value(expect(inspector, 200).body).expect("inspector key");
    let mut policy = PresentationPolicy::new(&s.parameters);
    policy.equal.push(Equality {
        attribute: "matchday".into(),
        value: "2013-08-07Z".into(),
    });
    policy.inspect.push(InspectionRequest {
        attribute: "member_number".into(),
        inspector,
        grounds: "lottery of matchday 2013-08-07".into(),
    });
    policy.scope = Some("urn:soccer:gate".into());
    let mut template = serde_json::to_value(&policy).expect("json");
    template
        .as_object_mut()
        .expect("object")
        .remove("nonce")
        .expect("nonce");
    template
}

/// A fresh policy from the verifier and the user's token for it.
fn present(s: &Services) -> Value {
    let policy = expect(
        post(&format!("{}/policy", s.verifier), &gate_template(s)),
        200,
    )
    .body;
    assert!(policy["revocation"].is_string(), "the verifier fills it in");
    let choices = post(&format!("{}/createPresentationToken", s.user), &policy);
    let choices = expect(choices, 200).body;
    assert_eq!(choices["choices"][0]["slot"], json!(0));
    assert_eq!(
        choices["choices"][0]["attributes"],
        json!([["matchday", "2013-08-07Z"]])
    );
    let ui = json!({"session": choices["session"], "choice": 0});
    let token = expect(
        post(&format!("{}/createPresentationTokenUi", s.user), &ui),
        200,
    );
    assert!(token.apdus.is_some_and(|n| n > 0), "the card's share");
    token.body
}

#[test]
fn vip_ticket_over_http() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let s = start(&runtime, dir.path());

    let parameters = expect(get(&format!("{}/parameters", s.issuer)), 200).body;
    assert_eq!(
        parameters,
        serde_json::to_value(&s.parameters).expect("json")
    );

    // The card.
    let setup = post(
        &format!("{}/createSmartcard", s.user),
        &json!({"pin": "1234", "puk": "12345678"}),
    );
    let setup = expect(setup, 200);
    assert!(setup.body["apdus"].as_u64().is_some_and(|n| n > 0));
    assert!(setup.body["bytes"].as_u64().is_some_and(|n| n > 0));

    // Issuance.
    let offer = expect(post(&format!("{}/issuance/offer", s.issuer), &john()), 200).body;
    let choices = expect(
        post(&format!("{}/issuanceProtocolStep", s.user), &offer),
        200,
    )
    .body;
    assert_eq!(
        choices["choices"][0]["attributes"][0],
        json!(["first_name", "John"])
    );
    let ui = json!({"session": choices["session"], "choice": 0});
    let request = expect(
        post(&format!("{}/issuanceProtocolStepUi", s.user), &ui),
        200,
    );
    assert!(request.apdus.is_some_and(|n| n > 0), "the card's share");
    let issue = format!("{}/issuance/issue", s.issuer);
    let response = expect(post(&issue, &request.body), 200).body;
    refused(post(&issue, &request.body), 409);
    let handle = serde_json::from_value::<IssuanceResponse>(response.clone())
        .expect("response")
        .handle
        .expect("revocable");
    let stored = post(
        &format!("{}/issuanceProtocolStep", s.user),
        &json!({"session": choices["session"], "response": response}),
    );
    assert_eq!(expect(stored, 200).body, json!({"slot": 0}));

    // Presentation, verification, inspection.
    let verify = format!("{}/verify", s.verifier);
    let token = present(&s);
    let seen = expect(post(&verify, &token), 200).body;
    assert_eq!(seen["disclosed"], json!([["matchday", "2013-08-07Z"]]));
    assert!(seen["pseudonym"].is_string());
    refused(post(&verify, &token), 409);
    let opened = post(
        &format!("{}/inspect", s.inspector),
        &json!({"token": token, "issuer": s.parameters}),
    );
    let opened = expect(opened, 200).body;
    assert_eq!(opened[0]["attribute"], json!("member_number"));
    assert_eq!(opened[0]["value"], json!("23784638726"));
    assert_eq!(
        opened[0]["grounds"],
        json!("lottery of matchday 2013-08-07")
    );

    // The same card shows the same pseudonym at the same gate.
    let again = present(&s);
    let mut unknown = again.clone();
    unknown["policy"]["nonce"] = json!(hex::encode([7u8; 32]));
    refused(post(&verify, &unknown), 404);
    let mut tampered = again.clone();
    let proof = tampered["proof"].as_str().expect("proof").to_string();
    let flipped = if proof.ends_with('0') { "1" } else { "0" };
    tampered["proof"] = json!(format!("{}{flipped}", &proof[..proof.len() - 1]));
    refused(post(&verify, &tampered), 422);

    // Bounds and malformed input.
    let oversized = vec![b' '; MAX_BODY_LEN + 1];
    refused(send(&verify, Some(oversized)), 413);
    refused(send(&verify, Some(b"{\"version\": 1,".to_vec())), 400);
    refused(
        post(
            &format!("{}/createPresentationTokenUi", s.user),
            &json!({"session": "00", "choice": 0}),
        ),
        404,
    );

    // Revoked: the user cannot bring its witness to the new accumulator.
    let info = post(
        &format!("{}/revoke", s.revocation),
        &json!({"handle": hex::encode(vss_cred::group::scalar_to_bytes(&handle))}),
    );
    assert_eq!(
        expect(info, 200).body,
        get(&format!("{}/info", s.revocation)).body
    );
    let removals = expect(get(&format!("{}/removals?since=0", s.revocation)), 200).body;
    assert_eq!(removals.as_array().map(Vec::len), Some(1));
    let policy = expect(
        post(&format!("{}/policy", s.verifier), &gate_template(&s)),
        200,
    )
    .body;
    let choices = expect(
        post(&format!("{}/createPresentationToken", s.user), &policy),
        200,
    )
    .body;
    let ui = json!({"session": choices["session"], "choice": 0});
    refused(
        post(&format!("{}/createPresentationTokenUi", s.user), &ui),
        422,
    );
    // A token for an earlier policy, relabelled with the new one, does not verify.
    let mut stale = again;
    stale["policy"] = policy;
    refused(post(&verify, &stale), 422);

    curl(&s);
}

/// `curl`, a client of its own, asks the revocation service for its state.
fn curl(s: &Services) {
    let url = format!("{}/info", s.revocation);
    let output = match std::process::Command::new("curl")
        .args(["-sS", "-w", "\n%{http_code}", &url])
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            println!("curl not run ({e}): skipped");
            return;
        }
    };
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    let (body, status) = text.rsplit_once('\n').expect("status line");
    assert_eq!(status, "200");
    assert_eq!(
        serde_json::from_str::<Value>(body).expect("json"),
        get(&url).body
    );
}
