//! o3de: prefabs through serde-o3de's lenient loader (issues reported with JSON paths) and its
//! byte-exact writer.

use std::path::Path;

use serde_json::json;
use serde_o3de::prefab::Prefab;
use serde_o3de::{Options, Report};

use super::{Failure, Outcome};
use crate::cli::Format;

fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(Format::O3de, e)
}

/// Loads a prefab leniently: the prefab, and the report's issues as warning lines.
fn load(bytes: &[u8]) -> Outcome<(Prefab, Report)> {
    let (prefab, report) = Options::new().load_slice::<Prefab>(bytes).map_err(fail)?;
    if prefab.container_entity.id.is_empty() && prefab.entities.is_empty() && prefab.instances.is_empty() {
        return Err(fail(
            "at /ContainerEntity: expected a prefab (ContainerEntity, Entities, Instances); other O3DE JSON is not modelled yet",
        ));
    }
    Ok((prefab, report))
}

fn warnings(report: &Report) -> Vec<String> {
    let mut lines: Vec<String> = report.issues.iter().map(|i| format!("warning: {i}")).collect();
    if report.omitted > 0 {
        lines.push(format!("warning: {} more issues not kept", report.omitted));
    }
    lines
}

pub(super) fn decode(compact: bool, bytes: &[u8]) -> Outcome<(Vec<u8>, Vec<String>)> {
    let (prefab, report) = load(bytes)?;
    if let Some(key) = prefab.extra.keys().find(|k| k.starts_with("$__")) {
        return Err(fail(format_args!("at /{key}: gamefmt reserves `$__` root members for its own settings")));
    }
    let text =
        if compact { serde_o3de::to_string(&prefab) } else { serde_o3de::to_string_pretty(&prefab) }.map_err(fail)?;
    let mut out = super::splice_meta(text.as_bytes(), &[("$__format", json!("o3de"))], !compact, "    ");
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    Ok((out, warnings(&report)))
}

pub(super) fn encode(json: &[u8]) -> Outcome<(Vec<u8>, Vec<String>)> {
    let (mut prefab, report) = load(json)?;
    prefab.extra.shift_remove("$__format");
    if let Some(key) = prefab.extra.keys().find(|k| k.starts_with("$__")) {
        return Err(fail(format_args!("at /{key}: unknown gamefmt key (expected $__format)")));
    }
    let text = serde_o3de::to_string_pretty(&prefab).map_err(fail)?;
    Ok((text.into_bytes(), warnings(&report)))
}

pub(super) fn inspect(path: &Path, bytes: &[u8]) -> Outcome<String> {
    let (prefab, report) = load(bytes)?;
    let mut out = String::new();
    out.push_str("format: o3de (prefab)\n");
    out.push_str(&format!("size: {}\n", super::size(bytes.len())));
    out.push_str(&format!("load: {} ({} issues)\n", report.outcome(), report.total_issues()));
    for w in warnings(&report) {
        out.push_str(&format!("  {w}\n"));
    }
    let name = &prefab.container_entity.name;
    out.push_str(&format!("container entity: {} {name:?}\n", prefab.container_entity.id));
    let entities: Vec<_> = prefab.all_entities().collect();
    let components: usize = entities.iter().map(|(_, e)| e.components.len()).sum();
    out.push_str(&format!("entities: {} (with the container)\ncomponents: {components}\n", entities.len()));
    out.push_str(&format!("instances: {}\n", prefab.instances.len()));
    for (alias, instance) in &prefab.instances {
        out.push_str(&format!("  {alias}: {} ({} patches)\n", instance.source, instance.patches.len()));
    }
    let mut types: std::collections::BTreeMap<&str, usize> = Default::default();
    for (_, e) in &entities {
        for c in e.components.values() {
            *types.entry(c.type_name()).or_default() += 1;
        }
    }
    out.push_str("component types:\n");
    for (t, n) in types {
        out.push_str(&format!("  {t}: {n}\n"));
    }
    let _ = path;
    Ok(out)
}
