//! The fuzzer under `cargo test`: every seed gets its manifest's verdict, every target runs
//! for about two seconds with a fixed seed without a crash, and a panicking input is caught,
//! reported and saved.

use std::time::Duration;

use tld4_fuzz::{corpus, driver, fuzz, run_caught, Expect, Settings, Target, Verdict};

fn crash_dir(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("tld4-fuzz-test-{name}-{}", std::process::id()))
}

#[test]
fn every_target_runs_two_seconds_without_a_crash() {
    let seeds = corpus::load(&corpus::default_dir()).expect("the committed corpus loads");
    let settings = Settings {
        duration: Duration::from_secs(2 * Target::ALL.len() as u64),
        seed: 1,
        crash_dir: crash_dir("two-seconds"),
        targets: Target::ALL.to_vec(),
        jobs: 2,
    };
    let report = fuzz(&seeds, &settings);
    assert!(report.crashes.is_empty(), "crashes: {:#?}", report.crashes);
    // (two threads: the report still lists the targets in the settings' order)
    let order: Vec<Target> = report.tried.iter().map(|(t, _)| *t).collect();
    assert_eq!(order, Target::ALL.to_vec());
    assert!(
        report.wrong_verdicts.is_empty(),
        "{:#?}",
        report.wrong_verdicts
    );
    for ((target, tried), (_, refused)) in report.tried.iter().zip(&report.refused) {
        let seeds_of = seeds.iter().filter(|s| s.target == *target).count() as u64;
        assert!(
            *tried > seeds_of,
            "{target}: only {tried} inputs for {seeds_of} seeds"
        );
        assert!(
            *refused < *tried,
            "{target}: every one of {tried} inputs refused"
        );
    }
}

#[test]
fn the_corpus_has_seeds_of_both_verdicts_for_every_target() {
    let seeds = corpus::load(&corpus::default_dir()).unwrap();
    for target in Target::ALL {
        for expect in [Expect::Accept, Expect::Refuse] {
            assert!(
                seeds
                    .iter()
                    .any(|s| s.target == target && s.expect == expect),
                "{target}: no seed to {expect:?}"
            );
        }
    }
    // The audit's malformed inputs are refused, each with its own message.
    for seed in seeds.iter().filter(|s| s.expect == Expect::Refuse) {
        match run_caught(seed.target, &seed.data) {
            Ok(Verdict::Refused(message)) => assert!(!message.is_empty(), "{}", seed.name),
            other => panic!("{}: {other:?}", seed.name),
        }
    }
}

#[test]
fn known_refusals_name_their_place() {
    let seed = |name: &str| {
        let seeds = corpus::load(&corpus::default_dir()).unwrap();
        let s = seeds.into_iter().find(|s| s.name == name).unwrap();
        match run_caught(s.target, &s.data) {
            Ok(Verdict::Refused(m)) => m,
            other => panic!("{name}: {other:?}"),
        }
    };
    assert!(seed("scenario/fraction_bits_21.json").starts_with("config.precision.fraction_bits"));
    assert!(seed("scenario/uniform_UR04.json").contains("UR04"));
    assert!(seed("scenario/dup_key_lane.json").starts_with("lanes[0]"));
    assert!(seed("scenario/huge_2d.json").starts_with("textures[0]"));
}

#[test]
fn a_panic_is_caught_reported_and_saved() {
    let caught = driver::catch(|| panic!("boom {}", 7)).unwrap_err();
    assert!(caught.starts_with("boom 7 at "), "{caught}");
    assert!(caught.contains("fuzz.rs:"), "{caught}");
    // After a caught panic, inputs run as before.
    assert_eq!(driver::catch(|| Verdict::Accepted), Ok(Verdict::Accepted));
    let dir = crash_dir("panic");
    let crash = driver::save(&dir, Target::Asm, b"TLD4 boom", &caught);
    let path = crash.saved.expect("saved");
    assert!(path.starts_with(&dir));
    assert_eq!(std::fs::read(&path).unwrap(), b"TLD4 boom");
    let message = std::fs::read_to_string(path.with_extension("txt")).unwrap();
    assert_eq!(message.trim_end(), caught);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_seed_with_the_wrong_verdict_fails_the_run() {
    let seeds = vec![tld4_fuzz::Seed {
        name: "word/decodes".into(),
        target: Target::Word,
        data: b"00000000081e9f0a20ff041814087f63".to_vec(),
        expect: Expect::Refuse,
    }];
    let settings = Settings {
        duration: Duration::ZERO,
        seed: 0,
        crash_dir: crash_dir("verdict"),
        targets: vec![Target::Word],
        jobs: 1,
    };
    let report = fuzz(&seeds, &settings);
    assert_eq!(report.wrong_verdicts.len(), 1);
    assert_eq!(report.wrong_verdicts[0].got, Verdict::Accepted);
    assert!(report.crashes.is_empty());
    assert!(!report.ok());
    assert_eq!(report.tried, vec![(Target::Word, 1)]);
}

/// Targets run side by side: each target's seeds are checked on its own, and the report lists
/// the targets, their verdicts and counts in the settings' order, whatever the threads.
#[test]
fn targets_on_several_threads_report_in_the_settings_order() {
    let seed = |name: &str, target, data: &[u8], expect| tld4_fuzz::Seed {
        name: name.into(),
        target,
        data: data.to_vec(),
        expect,
    };
    let seeds = vec![
        seed(
            "asm/ok",
            Target::Asm,
            b"TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;",
            Expect::Accept,
        ),
        seed(
            "word/wrong",
            Target::Word,
            b"00000000081e9f0a20ff041814087f63",
            Expect::Refuse,
        ),
        seed("word/bad", Target::Word, b"not hex", Expect::Refuse),
    ];
    for jobs in [1, 2, 5] {
        let settings = Settings {
            duration: Duration::ZERO,
            seed: 0,
            crash_dir: crash_dir("threads"),
            targets: vec![Target::Word, Target::Cases, Target::Asm],
            jobs,
        };
        let report = fuzz(&seeds, &settings);
        assert_eq!(
            report.tried,
            vec![(Target::Word, 2), (Target::Cases, 0), (Target::Asm, 1)],
            "{jobs} threads"
        );
        assert_eq!(
            report.refused,
            vec![(Target::Word, 1), (Target::Cases, 0), (Target::Asm, 0)],
            "{jobs} threads"
        );
        let wrong: Vec<&str> = report
            .wrong_verdicts
            .iter()
            .map(|w| w.seed.as_str())
            .collect();
        assert_eq!(wrong, ["word/wrong"], "{jobs} threads");
        assert!(report.crashes.is_empty(), "{jobs} threads");
    }
}
