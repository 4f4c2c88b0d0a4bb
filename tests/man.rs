//! `man/rpprof.1` is generated from the clap definitions: this test fails when a flag or its
//! help changed without regenerating the page. Regenerate with
//!
//!     RPPROF_BLESS=1 cargo test --test man

mod common;

fn render() -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(rpprof::cli::command())
        .render(&mut out)
        .expect("render the man page");
    out
}

#[test]
fn man_page_is_current() {
    let path = common::root().join("man").join("rpprof.1");
    let page = render();
    if std::env::var_os("RPPROF_BLESS").is_some() {
        std::fs::write(&path, &page).expect("write man/rpprof.1");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == page,
        "man/rpprof.1 is not the page the clap definitions make; regenerate it with \
         RPPROF_BLESS=1 cargo test --test man"
    );
}

#[test]
fn man_page_documents_every_option() {
    let page = String::from_utf8(render()).expect("UTF-8 man page");
    for arg in rpprof::cli::command().get_arguments() {
        if arg.is_hide_set() {
            continue;
        }
        if let Some(long) = arg.get_long() {
            // roff escapes '-' as '\-'.
            let shown = format!("\\-\\-{}", long.replace('-', "\\-"));
            assert!(page.contains(&shown), "--{long} is not in the man page");
        }
    }
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = common::rpprof(&common::root(), &["--completions", shell]);
        assert!(out.status.success(), "{shell}: {:?}", out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("rpprof"), "{shell}: {text}");
        assert!(
            text.contains("lib_prefix"),
            "{shell} script lacks --lib_prefix"
        );
    }
}
