//! `xborder-simulator`: see the crate documentation and `--help`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use xborder_simulator::{api, check, cli, slow};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        if args.first().map(String::as_str) == Some("slow-body") {
            print!("{}", slow::USAGE);
        } else if args.first().map(String::as_str) == Some("api") {
            print!("{}", api::USAGE);
        } else {
            print!("{}", cli::USAGE);
        }
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("check") => check_main(args.get(1..).unwrap_or(&[])),
        Some("send") => send_main(args.get(1..).unwrap_or(&[])),
        Some("slow-body") => slow_main(args.get(1..).unwrap_or(&[])),
        Some("api") => api_main(args.get(1..).unwrap_or(&[])),
        _ => send_main(&args),
    }
}

fn usage_error(e: &str) -> ExitCode {
    eprintln!("xborder-simulator: {e}\n(--help for usage)");
    ExitCode::from(2)
}

/// The tokio runtime of `send` and `slow-body` (exit 2 when it cannot be built).
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| usage_error(&format!("runtime: {e}")))
}

fn api_main(args: &[String]) -> ExitCode {
    let cfg = match api::parse(args) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(api::serve(cfg)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => usage_error(&e),
    }
}

fn send_main(args: &[String]) -> ExitCode {
    let cfg = match cli::parse_send(args) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(xborder_simulator::run(&cfg)) {
        Ok(summary) => {
            print!("{}", summary.table());
            if summary.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => usage_error(&e),
    }
}

fn check_main(args: &[String]) -> ExitCode {
    let (cfg, json) = match cli::parse_check(args) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let report = match check::check(&cfg) {
        Ok(r) => r,
        Err(e) => return usage_error(&e),
    };
    print!("{}", report.table());
    if let Some(path) = json {
        let written = serde_json::to_string_pretty(&report)
            .map_err(|e| e.to_string())
            .and_then(|t| std::fs::write(&path, t + "\n").map_err(|e| e.to_string()));
        if let Err(e) = written {
            return usage_error(&format!("--json {}: {e}", path.display()));
        }
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn slow_main(args: &[String]) -> ExitCode {
    let cfg = match slow::parse(args) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(slow::run(&cfg)) {
        Ok(report) => {
            print!("{}", report.table());
            ExitCode::SUCCESS
        }
        Err(e) => usage_error(&e),
    }
}
