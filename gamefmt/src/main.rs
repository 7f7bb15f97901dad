//! `gamefmt`: one command line over serde-gamefmt's formats (Resonite BRSON, KingsIsle
//! ObjectProperty, Godot Variant, O3DE JSON): decode to JSON, encode back, inspect, diff, and
//! list or rewrite Resonite asset URLs. Thin wiring over the format crates.

mod cli;
mod diff;
mod formats;
mod output;
mod run;
mod status;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout (status 0) and usage errors to stderr (2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let cli::Command::Completions { shell } = cli.command {
        clap_complete::generate(shell, &mut cli::Cli::command(), "gamefmt", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    ExitCode::from(run::run(cli))
}
