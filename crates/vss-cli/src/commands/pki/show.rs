//! How the `vss pki` commands print a summary: one JSON object, or a table of its fields.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::Value;

use crate::output::{emit, print_json, Format, Table};

/// Prints the JSON, or a table: one row per scalar field, one per listed item.
pub fn show(format: Format, value: &Value) -> Result<ExitCode> {
    match format {
        Format::Json => print_json(value)?,
        Format::Table => {
            let mut table = Table::new(&["field", "value"]);
            for (key, field) in value.as_object().into_iter().flatten() {
                match field {
                    Value::Array(items) => {
                        for item in items {
                            table.row(vec![key.clone(), compact(item)]);
                        }
                    }
                    other => table.row(vec![key.clone(), compact(other)]),
                }
            }
            emit(&table.render())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A value in one cell: a string as it is, an object as `key=value` pairs (nulls left out),
/// an array comma-separated.
fn compact(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(fields) => fields
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| format!("{k}={}", compact(v)))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}
