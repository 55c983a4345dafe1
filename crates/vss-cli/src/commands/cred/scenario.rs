//! `vss cred scenario`: seed 003's VIP-ticket scenario end to end, timed per step.

use std::process::ExitCode;
use vss_hsm::pin::{PIN_ENV, PUK_ENV};

use anyhow::Result;
use clap::Args;
use vss_card::connect::{CardChoice, CardKind};
use vss_cred::scenario;

use crate::output::{self, Format, Table};

/// `vss cred scenario`'s arguments.
#[derive(Args)]
pub struct ScenarioArgs {
    /// Where the card is; `tcp` starts its own card process unless --card-addr names one.
    #[arg(long, value_enum, default_value_t = CardKind::Soft)]
    card: CardKind,
    /// The PC/SC reader, for --card pcsc (default: the first whose card has the application).
    #[arg(long, value_name = "NAME")]
    reader: Option<String>,
    /// A running card's TCP address, for --card tcp.
    #[arg(long, value_name = "ADDR")]
    card_addr: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// A fresh PIN and PUK for the scenario's card: VSS_PIN and VSS_PUK when set.
fn scenario_codes() -> (String, String) {
    let pin = std::env::var(PIN_ENV).unwrap_or_else(|_| "4711".into());
    let puk = std::env::var(PUK_ENV).unwrap_or_else(|_| "12345678".into());
    (pin, puk)
}

/// Runs the scenario with the card the options name and prints its report.
pub fn run(args: ScenarioArgs) -> Result<ExitCode> {
    let choice = CardChoice {
        kind: args.card,
        addr: args.card_addr,
        reader: args.reader,
    };
    choice.check()?;
    let roles = tempfile::tempdir()?;
    let (mut card, own_card) = choice.open_or_start(&roles.path().join("card.state"))?;
    let (pin, puk) = scenario_codes();
    let report = scenario::run(card.as_mut(), &roles.path().join("roles"), &pin, &puk)?;
    drop(card);
    drop(own_card);
    match args.format {
        Format::Json => output::print_json(&serde_json::to_value(&report)?)?,
        Format::Table => {
            let mut table = Table::new(&["step", "ms", "APDUs", "bytes"]);
            for (name, step) in report.steps.named() {
                table.row(vec![
                    name.into(),
                    format!("{:.2}", step.ms),
                    step.apdus.to_string(),
                    step.bytes.to_string(),
                ]);
            }
            let all_refused = report.refused.all();
            output::emit(&format!(
                "{}inspected member number: {}\nall six refusals refused: {all_refused}\npseudonyms: same scope equal {}, other scope differs {}\ncard peak RSS: {} kB\n",
                table.render(),
                report.inspected.member_number,
                report.pseudonym.same_scope_equal,
                report.pseudonym.other_scope_differs,
                report.card_max_rss_kb
            ))?;
        }
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
