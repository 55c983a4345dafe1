//! tests/c/test_vss.c, compiled with `cc` against include/vss.h and the libvss.so of this
//! build, run on a real entity: a testbed PKI on loopback, a station enrolled with its
//! pseudonym pool, its vss.toml and PIN file. Then the same program under valgrind (memory
//! errors and leaks fail it), when valgrind is installed; `VSS_REQUIRE_VALGRIND=1` (set by
//! scripts/test, which installs it) turns its absence into a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vss_testbed::{HsmOptions, Testbed, PIN};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory of the libvss.so that cargo built with this test: the test executable's
/// deps/ (where `cargo test` leaves it), else the profile directory above it (`cargo build`).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let deps = exe.parent().expect("deps directory");
    let found = [deps, deps.parent().expect("profile directory")]
        .into_iter()
        .find(|dir| dir.join("libvss.so").is_file())
        .unwrap_or_else(|| panic!("no libvss.so next to {}", deps.display()))
        .to_path_buf();
    found
}

/// A testbed, and in `dir` the vss.toml of an enrolled station with its PIN file.
fn entity_config(dir: &Path) -> (Testbed, PathBuf) {
    let testbed = Testbed::new(&["A"]).expect("testbed");
    let pki = &testbed.pkis[0];
    let station = testbed.station("S", &HsmOptions::soft()).expect("station");
    station.enroll(pki).expect("enrol");
    station.pseudonyms(pki, pki, 5).expect("pseudonyms");
    let mut config = station.config(&testbed, pki, pki, &dir.join("stats"));
    let pin_file = dir.join("pin");
    std::fs::write(&pin_file, format!("{PIN}\n")).expect("pin file");
    config.hsm.pin_file = Some(pin_file);
    // A change every 20 signatures, so that the threads' signing changes pseudonyms.
    config.pseudonyms.max_uses = 20;
    let path = dir.join("vss.toml");
    std::fs::write(&path, toml::to_string(&config).expect("TOML")).expect("vss.toml");
    (testbed, path)
}

/// Compiles tests/c/test_vss.c into `dir`.
fn compile(dir: &Path, library: &Path) -> PathBuf {
    let exe = dir.join("test_vss");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-I"])
        .arg(root().join("include"))
        .arg(root().join("tests/c/test_vss.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(library)
        .arg("-lvss")
        .output()
        .expect("cc (install a C compiler)");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs `program` with `args`, libvss.so found through LD_LIBRARY_PATH.
fn run(program: &str, args: &[&Path], library: &Path) -> Output {
    Command::new(program)
        .args(args)
        .env("LD_LIBRARY_PATH", library)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// Asserts that the program passed every check, with its output on failure.
fn assert_passed(out: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = format!("{what}: {}\n{stdout}\n{stderr}", out.status);
    assert!(out.status.success(), "{report}");
    assert!(!stdout.contains("FAIL"), "{report}");
    for line in [
        "ok verify: SUCCESS",
        "ok verify: the payload back",
        "ok verify tampered: FALSE_SIGNATURE",
        "ok verify batch: SUCCESS, FALSE_SIGNATURE at 2, MALFORMED last",
        "ok id change: PREPARE then COMMIT",
        "ok open bad path: last error names it",
        "ok threads: every message signed",
        ", 0 failures",
    ] {
        assert!(stdout.contains(line), "no `{line}` in {report}");
    }
}

/// Whether valgrind runs here.
fn valgrind_installed() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_c_program_passes_plainly_and_under_valgrind() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let library = library_dir();
    let exe = compile(dir.path(), &library);
    let (testbed, config) = entity_config(dir.path());

    let out = run(exe.to_str().expect("UTF-8 path"), &[&config], &library);
    assert_passed(&out, "test_vss");

    if !valgrind_installed() {
        let required = std::env::var("VSS_REQUIRE_VALGRIND").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "VSS_REQUIRE_VALGRIND=1 but valgrind is not installed"
        );
        eprintln!("SKIPPED: the valgrind run (valgrind is not installed)");
        return;
    }
    // A fresh station: the first run used up and changed the first one's pseudonyms.
    drop(testbed);
    let dir = tempfile::tempdir().expect("temporary directory");
    let (_testbed, config) = entity_config(dir.path());
    let suppressions = root().join("tests/c/valgrind.supp");
    let out = run(
        "valgrind",
        &[
            Path::new("--error-exitcode=1"),
            Path::new("--leak-check=full"),
            Path::new("--errors-for-leak-kinds=definite,possible"),
            &PathBuf::from(format!("--suppressions={}", suppressions.display())),
            &exe,
            &config,
        ],
        &library,
    );
    assert_passed(&out, "test_vss under valgrind");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind found errors:\n{stderr}"
    );
}
