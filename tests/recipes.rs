//! The CI recipes of docs/recipes: a GitHub Actions matrix, GitLab CI `parallel:` and a
//! Kubernetes Indexed Job, each sharding a check and merging the shards.
//!
//! - Each recipe is valid to its real consumer's schema, offline: SchemaStore's GitHub workflow
//!   and GitLab CI schemas (vendored in check-jsonschema) and the Kubernetes 1.30 API
//!   (kubernetes-validate, strict: no unknown field). Both come, pinned, in the venv
//!   scripts/install-test-tools.sh makes (target/test-tools/pyvenv); under CI (`CI` set) a
//!   missing one fails the test, elsewhere the test says what it skipped. A broken copy of each
//!   is refused by the same validator, so a validator that accepts anything cannot pass.
//! - Each recipe is wired as its header says: the shard count agrees everywhere, each shard's
//!   file reaches the merge, the merge's report is the one published. Kubernetes' schema knows
//!   no enumerations (`completionMode: Sideways` passes it), so those checks also hold the
//!   values it cannot.
//! - Every `spindle` command line in them, comments included, is this build's command line: each
//!   flag is one that `spindle SUBCOMMAND --help` lists, each whole line parses (run where it can
//!   read nothing and reach no server), and the GitHub and GitLab pipelines, run as their CI
//!   would run them on the bundled examples, merge into the report one unsharded run writes.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use spindle_test_support::{EXAMPLES, consumers};
use tempfile::TempDir;

const GITHUB: &str = "github-actions-matrix.yml";
const GITLAB: &str = "gitlab-ci.yml";
const KUBERNETES: &str = "kubernetes-indexed-job.yaml";
const RECIPES: [&str; 3] = [GITHUB, GITLAB, KUBERNETES];

/// The Kubernetes API the recipe is held to: the oldest release it is written for.
const KUBERNETES_VERSION: &str = "1.30.0";

/// A proxy nothing listens on: a validator that tried to fetch a schema would fail.
const NO_NETWORK: &str = "http://127.0.0.1:9";

/// What clap prints, and only clap, when a command line does not parse.
const USAGE_ERROR: &str = "For more information, try '--help'";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn recipe_path(name: &str) -> PathBuf {
    root().join("docs/recipes").join(name)
}

fn recipe(name: &str) -> String {
    fs::read_to_string(recipe_path(name)).unwrap_or_else(|e| panic!("docs/recipes/{name}: {e}"))
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A program of the validators' venv, or `None` after saying why the check is skipped (a
/// panic under CI).
fn venv_tool(name: &str) -> Option<PathBuf> {
    spindle_test_support::consumers::test_tool(&format!("pyvenv/bin/{name}"))
}

#[derive(Clone, Copy)]
enum Schema {
    GithubWorkflow,
    GitlabCi,
    Kubernetes,
}

/// The recipe `file` checked by its validator: `Err` with what the validator said when it
/// refuses it; `None` when the validator is not installed (and not under CI).
fn validate(schema: Schema, file: &Path) -> Option<Result<(), String>> {
    let (tool, args): (&str, &[&str]) = match schema {
        Schema::GithubWorkflow => ("check-jsonschema", &["--builtin-schema", "vendor.github-workflows"]),
        Schema::GitlabCi => {
            ("check-jsonschema", &["--builtin-schema", "vendor.gitlab-ci", "--data-transform", "gitlab-ci"])
        }
        Schema::Kubernetes => {
            ("kubernetes-validate", &["--strict", "--kubernetes-version", KUBERNETES_VERSION])
        }
    };
    let tool = venv_tool(tool)?;
    let out = Command::new(&tool)
        .args(args)
        .arg(file)
        .env("HTTP_PROXY", NO_NETWORK)
        .env("HTTPS_PROXY", NO_NETWORK)
        .env("http_proxy", NO_NETWORK)
        .env("https_proxy", NO_NETWORK)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    Some(if out.status.success() { Ok(()) } else { Err(text(&out)) })
}

/// The recipe passes its validator, and a copy with `edits` made is refused, the validator
/// naming `named`.
fn valid_and_broken_copy_refused(schema: Schema, name: &str, edits: &[(&str, &str)], named: &str) {
    let Some(verdict) = validate(schema, &recipe_path(name)) else { return };
    verdict.unwrap_or_else(|e| panic!("docs/recipes/{name} is refused:\n{e}"));

    let mut broken = recipe(name);
    for (from, to) in edits {
        assert!(broken.contains(from), "docs/recipes/{name} no longer has {from:?}: update this test");
        broken = broken.replacen(from, to, 1);
    }
    let dir = TempDir::new().unwrap();
    let copy = dir.path().join(name);
    fs::write(&copy, broken).unwrap();
    match validate(schema, &copy).expect("installed a moment ago") {
        Ok(()) => panic!("docs/recipes/{name} with {edits:?} passes its validator: it checks nothing"),
        Err(said) => assert!(said.contains(named), "the validator should name {named:?}:\n{said}"),
    }
}

#[test]
fn the_github_workflow_is_valid_and_one_without_runs_on_is_not() {
    valid_and_broken_copy_refused(
        Schema::GithubWorkflow,
        GITHUB,
        &[("    runs-on: ubuntu-24.04\n    timeout-minutes: 30\n", "    timeout-minutes: 30\n")],
        "'runs-on' is a required property",
    );
}

#[test]
fn the_gitlab_pipeline_is_valid_and_one_with_parallel_four_in_words_is_not() {
    valid_and_broken_copy_refused(
        Schema::GitlabCi,
        GITLAB,
        &[("\n  parallel: 4\n", "\n  parallel: \"four\"\n")],
        "parallel",
    );
}

#[test]
fn the_kubernetes_objects_are_valid_and_a_misspelt_or_mistyped_field_is_not() {
    valid_and_broken_copy_refused(
        Schema::Kubernetes,
        KUBERNETES,
        &[("\n  parallelism: 4\n", "\n  parallelsim: 4\n")],
        "'parallelsim' was unexpected",
    );
    valid_and_broken_copy_refused(
        Schema::Kubernetes,
        KUBERNETES,
        &[("\n  completions: 4\n", "\n  completions: four\n")],
        "'four' is not of type 'integer'",
    );
}

// ---------------------------------------------------------------------------------------------
// The wiring: what a schema cannot see.

/// Each YAML document of `text` (separated by `---` lines) as JSON, by PyYAML; `None` when no
/// Python with PyYAML is installed (and not under CI).
fn yaml_documents(text: &str) -> Option<Vec<Value>> {
    let venv = root().join("target/test-tools/pyvenv/bin/python");
    let python = if venv.is_file() { venv } else { consumers::python_with_yaml()? };
    let blocks: Vec<(String, String)> =
        text.split("\n---\n").enumerate().map(|(i, b)| (i.to_string(), b.to_string())).collect();
    Some(consumers::parse_yaml(&python, &blocks).into_iter().filter(|d| !d.is_null()).collect())
}

fn str_of<'a>(v: &'a Value, what: &str) -> &'a str {
    v.as_str().unwrap_or_else(|| panic!("{what}: expected a string, found {v}"))
}

/// The tokens of a shell command line (split at white space: the recipes quote no space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The value after `flag` in `line`.
fn flag_value<'a>(line: &'a str, flag: &str) -> Option<&'a str> {
    let w = words(line);
    w.iter().position(|t| *t == flag).and_then(|i| w.get(i + 1).copied())
}

/// N of the `--shard I/N` of `line`, when N is a number (`${{ matrix.shard }}/4`,
/// `$((JOB_COMPLETION_INDEX + 1))/4`).
fn shard_count(line: &str) -> Option<u64> {
    let spec = &line[line.find("--shard ")? + "--shard ".len()..];
    let n = &spec[spec.find('/')? + 1..];
    n[..n.find(|c: char| !c.is_ascii_digit()).unwrap_or(n.len())].parse().ok()
}

/// The step of `job` whose `run` starts with `prefix`.
fn run_step<'a>(job: &'a Value, prefix: &str) -> &'a str {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.starts_with(prefix))
        .unwrap_or_else(|| panic!("no step runs {prefix}"))
}

/// The step of `job` that uses `action` (`owner/name@`).
fn uses_step<'a>(job: &'a Value, action: &str) -> &'a Value {
    job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(action)))
        .unwrap_or_else(|| panic!("no step uses {action}"))
}

#[test]
fn the_github_matrix_feeds_every_shard_to_the_merge_and_publishes_its_log() {
    let Some(docs) = yaml_documents(&recipe(GITHUB)) else { return };
    let workflow = &docs[0];
    let (shard, merge) = (&workflow["jobs"]["shard"], &workflow["jobs"]["merge"]);

    let check = run_step(shard, "spindle check");
    assert!(
        check.contains("--shard ${{ matrix.shard }}/"),
        "each job is the shard its matrix value names: {check}"
    );
    let count = shard_count(check).expect("--shard I/N with N a number");
    assert_eq!(shard["strategy"]["fail-fast"], false, "one shard's failure must not cancel the others");
    let matrix: Vec<u64> = shard["strategy"]["matrix"]["shard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(matrix, (1..=count).collect::<Vec<_>>(), "the matrix is shards 1 to {count}, as --shard says");

    // Each shard's file is its artifact, shard-I; the merge downloads them all into one folder.
    let upload = &uses_step(shard, "actions/upload-artifact@v4")["with"];
    let in_job_1 = |s: &str| s.replace("${{ matrix.shard }}", "1");
    let file = flag_value(&in_job_1(check), "-o").map(String::from);
    assert_eq!(upload["path"].as_str().map(in_job_1), file, "the artifact is the shard file");
    assert_eq!(upload["name"], "shard-${{ matrix.shard }}");
    assert_eq!(upload["if-no-files-found"], "error");
    let download = &uses_step(merge, "actions/download-artifact@v4")["with"];
    assert_eq!(download["pattern"], "shard-*");
    assert_eq!(download["merge-multiple"], true);
    let folder = str_of(&download["path"], "the download's path");

    assert_eq!(merge["needs"], "shard");
    assert_eq!(merge["if"], "${{ !cancelled() }}", "the merge itself refuses a missing shard");
    assert_eq!(merge["permissions"]["security-events"], "write");
    let merged = run_step(merge, "spindle merge");
    assert_eq!(words(merged)[2].trim_end_matches('/'), folder, "the merge reads what was downloaded");
    let upload_sarif = uses_step(merge, "github/codeql-action/upload-sarif@v3");
    assert_eq!(upload_sarif["with"]["sarif_file"].as_str(), flag_value(merged, "-o"));
    assert!(
        str_of(&upload_sarif["if"], "the upload's if").contains("always()"),
        "a failing verdict is published too"
    );
    assert_eq!(flag_value(check, "--format"), Some("sarif"));
}

#[test]
fn the_gitlab_shards_reach_the_merge_and_its_report_is_code_quality() {
    let Some(docs) = yaml_documents(&recipe(GITLAB)) else { return };
    let pipeline = &docs[0];
    let (shard, merge) = (&pipeline["spindle-shard"], &pipeline["spindle-merge"]);
    let stages: Vec<&str> =
        pipeline["stages"].as_array().unwrap().iter().map(|s| str_of(s, "a stage")).collect();
    let stage =
        |job: &Value| stages.iter().position(|s| *s == str_of(&job["stage"], "a job's stage")).unwrap();
    assert!(stage(shard) < stage(merge), "the merge runs in a later stage");

    assert!(shard["parallel"].as_u64().is_some_and(|n| n >= 2), "parallel: N");
    let script = |job: &Value, prefix: &str| -> String {
        let lines = job["script"].as_array().unwrap();
        lines.iter().map(|l| str_of(l, "a script line")).find(|l| l.starts_with(prefix)).unwrap().to_string()
    };
    let check = script(shard, "spindle check");
    assert_eq!(flag_value(&check, "--shard"), Some("\"$CI_NODE_INDEX/$CI_NODE_TOTAL\""));
    assert_eq!(flag_value(&check, "--format"), Some("gitlab"));
    let out = flag_value(&check, "-o").unwrap().trim_matches('"');
    let kept: Vec<&str> =
        shard["artifacts"]["paths"].as_array().unwrap().iter().map(|p| str_of(p, "a path")).collect();
    assert!(
        kept.iter().any(|p| out.starts_with(p.trim_end_matches('/'))),
        "{out} is not in the artifacts {kept:?}"
    );

    let needs = merge["needs"].as_array().unwrap();
    assert!(needs.iter().any(|n| n["job"] == "spindle-shard" && n["artifacts"] == true), "{needs:?}");
    let merged = script(merge, "spindle merge");
    let folder = words(&merged)[2].trim_end_matches('/');
    assert!(out.starts_with(&format!("{folder}/")), "the merge reads {folder}, the shards write {out}");
    assert_eq!(merge["artifacts"]["when"], "always", "a failing verdict keeps its report");
    assert_eq!(merge["artifacts"]["reports"]["codequality"].as_str(), flag_value(&merged, "-o"));
}

/// The recipe's Kubernetes objects, by kind and name.
fn objects(docs: &[Value]) -> BTreeMap<(String, String), &Value> {
    docs.iter()
        .map(|d| {
            ((str_of(&d["kind"], "kind").to_string(), str_of(&d["metadata"]["name"], "name").to_string()), d)
        })
        .collect()
}

/// The shell script a container runs: `/bin/sh -c SCRIPT`.
fn shell_script(container: &Value) -> &str {
    assert_eq!(container["command"], serde_json::json!(["/bin/sh", "-c"]), "a shell, for $((...))");
    str_of(&container["args"][0], "the script")
}

/// The line of `script` that runs `spindle SUB`.
fn spindle_line<'a>(script: &'a str, sub: &str) -> &'a str {
    let prefix = format!("spindle {sub} ");
    script
        .lines()
        .map(|l| l.trim().trim_start_matches("exec "))
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no `spindle {sub}` in {script}"))
}

/// Where `path` (a file or folder in the container) comes from: the volume mount it is under
/// and the pod's volume.
fn mount_of<'a>(pod: &'a Value, container: &'a Value, path: &str) -> (&'a Value, &'a Value) {
    let mount = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            let at = str_of(&m["mountPath"], "mountPath");
            path == at || path.starts_with(&format!("{at}/"))
        })
        .max_by_key(|m| m["mountPath"].as_str().unwrap().len())
        .unwrap_or_else(|| panic!("{path} is on no volume"));
    let volume = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .expect("the mount's volume");
    (mount, volume)
}

/// The Kubernetes recipe's wiring: an Indexed Job of N pods, each writing shard I/N to the
/// claim the merge reads, the inventory mounted from the ConfigMap, the password from a Secret,
/// and the order of the steps its header gives. `Err` says what does not hold.
fn kubernetes_wiring(text: &str, docs: &[Value]) -> Result<(), String> {
    let ensure = |ok: bool, what: String| if ok { Ok(()) } else { Err(what) };
    let objects = objects(docs);
    let get = |kind: &str, name: &str| {
        objects.get(&(kind.to_string(), name.to_string())).copied().ok_or_else(|| format!("no {kind} {name}"))
    };
    let shards = get("Job", "spindle-shards")?;
    let merge = get("Job", "spindle-merge")?;
    let claim = get("PersistentVolumeClaim", "spindle-data")?;
    let inventory = get("ConfigMap", "spindle-inventory")?;
    ensure(
        claim["spec"]["accessModes"] == serde_json::json!(["ReadWriteMany"]),
        "the claim is ReadWriteMany".into(),
    )?;

    let spec = &shards["spec"];
    ensure(spec["completionMode"] == "Indexed", format!("completionMode: {}", spec["completionMode"]))?;
    let pod = &spec["template"]["spec"];
    let container = &pod["containers"][0];
    let script = shell_script(container);
    let check = spindle_line(script, "check");
    ensure(
        flag_value(check, "--shard") == Some("$((JOB_COMPLETION_INDEX"),
        format!("pod I is shard $((JOB_COMPLETION_INDEX + 1)): {check}"),
    )?;
    let count = shard_count(check);
    ensure(
        count.is_some() && spec["completions"].as_u64() == count && spec["parallelism"].as_u64() == count,
        format!(
            "completions {} and parallelism {} are not the {count:?} shards",
            spec["completions"], spec["parallelism"]
        ),
    )?;
    ensure(pod["restartPolicy"] == "Never", "restartPolicy: Never".into())?;
    let password = container["env"]
        .as_array()
        .and_then(|e| e.iter().find(|v| v["name"] == "SPINDLE_SQL_PASSWORD"))
        .ok_or("no SPINDLE_SQL_PASSWORD")?;
    ensure(
        password["valueFrom"]["secretKeyRef"]["name"].is_string(),
        "the password comes from a Secret".into(),
    )?;

    // The inventory is the ConfigMap's file.
    let list = flag_value(check, "--inventory").ok_or("no --inventory")?;
    let (mount, volume) = mount_of(pod, container, list);
    ensure(volume["configMap"]["name"] == inventory["metadata"]["name"], "the inventory's volume".into())?;
    let key = list.strip_prefix(&format!("{}/", str_of(&mount["mountPath"], "mountPath"))).unwrap_or("");
    ensure(inventory["data"][key].is_string(), format!("the ConfigMap has no {key}"))?;

    // The shards go to the claim's folder the merge reads, the report to another.
    let out = flag_value(check, "-o").ok_or("no -o")?;
    let (written, volume) = mount_of(pod, container, out);
    ensure(
        volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"],
        "shards on the claim".into(),
    )?;
    ensure(script.contains(&format!("rm -f {out}")), "each pod removes its old shard file first".into())?;
    let merge_spec = &merge["spec"];
    ensure(
        merge_spec["backoffLimit"] == 0,
        "the merge is not retried: its exit status is the verdict".into(),
    )?;
    let merge_pod = &merge_spec["template"]["spec"];
    let merge_container = &merge_pod["containers"][0];
    let merged = spindle_line(shell_script(merge_container), "merge");
    let (read, volume) = mount_of(merge_pod, merge_container, words(merged)[2]);
    ensure(
        volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"],
        "the merge reads the claim".into(),
    )?;
    ensure(read["subPath"] == written["subPath"], "the merge reads the folder the shards write".into())?;
    let report = flag_value(merged, "-o").ok_or("no -o on the merge")?;
    let (to, _) = mount_of(merge_pod, merge_container, report);
    ensure(to["subPath"] != read["subPath"], "the report is not among the shard files".into())?;

    // The header's steps: the shards, a wait for them, then the merge, each picked by its label.
    let label =
        |o: &Value| o["metadata"]["labels"]["spindle.example.com/step"].as_str().unwrap_or("").to_string();
    for o in [shards, claim, inventory] {
        ensure(label(o) == "shard", format!("{} is applied with the shards", o["metadata"]["name"]))?;
    }
    ensure(label(merge) == "merge", "the merge is applied on its own".into())?;
    let at = |s: &str| text.find(s).ok_or_else(|| format!("the header does not say `{s}`"));
    let (apply_shards, wait, apply_merge) = (
        at(&format!("kubectl apply -f {KUBERNETES} -l spindle.example.com/step=shard"))?,
        at("kubectl wait --for=condition=complete --timeout=2h job/spindle-shards")?,
        at(&format!("kubectl apply -f {KUBERNETES} -l spindle.example.com/step=merge"))?,
    );
    ensure(apply_shards < wait && wait < apply_merge, "apply the shards, wait, then apply the merge".into())
}

#[test]
fn the_kubernetes_indexed_job_writes_every_shard_where_the_merge_reads() {
    let text = recipe(KUBERNETES);
    let Some(docs) = yaml_documents(&text) else { return };
    kubernetes_wiring(&text, &docs).unwrap();

    // What the API's schema lets through is caught here.
    for (from, to) in [
        ("\n  completionMode: Indexed\n", "\n  completionMode: Sideways\n"),
        ("\n  completions: 4\n", "\n  completions: 3\n"),
        ("subPath: shards\n            - name: tmp", "subPath: shard\n            - name: tmp"),
    ] {
        assert!(text.contains(from), "{from:?} is no longer in the recipe: update this test");
        let broken = text.replacen(from, to, 1);
        let docs = yaml_documents(&broken).unwrap();
        assert!(kubernetes_wiring(&broken, &docs).is_err(), "{to:?} is not caught");
    }

    // The inventory is one spindle reads.
    let inventory =
        &objects(&docs)[&("ConfigMap".to_string(), "spindle-inventory".to_string())]["data"]["servers.toml"];
    let servers =
        spindle_collectors::inventory::parse(str_of(inventory, "servers.toml"), Path::new("/etc/spindle"))
            .unwrap_or_else(|r| panic!("the ConfigMap's inventory is refused: {:?}", r.errors));
    assert!(servers.len() >= 4, "a fleet to shard");
}

// ---------------------------------------------------------------------------------------------
// The command lines.

/// A `spindle` command in a recipe: a whole line (a step's command, or an example in a comment)
/// or one mentioned in prose between backticks, where only its flags are checked.
#[derive(Debug)]
struct SpindleCommand {
    recipe: &'static str,
    line: usize,
    text: String,
    whole: bool,
}

impl SpindleCommand {
    fn at(&self) -> String {
        format!("docs/recipes/{}:{}: {}", self.recipe, self.line, self.text)
    }
}

fn spindle_commands() -> Vec<SpindleCommand> {
    let mut found = vec![];
    for name in RECIPES {
        for (i, raw) in recipe(name).lines().enumerate() {
            let mut s = raw.trim_start();
            s = s.strip_prefix('#').unwrap_or(s).trim_start();
            for prefix in ["- ", "run: ", "exec "] {
                s = s.strip_prefix(prefix).unwrap_or(s);
            }
            let command = |text: &str, whole| SpindleCommand {
                recipe: name,
                line: i + 1,
                text: text.trim().to_string(),
                whole,
            };
            if s.starts_with("spindle ") {
                assert!(!s.ends_with('\\'), "{name}:{}: keep each spindle command on one line", i + 1);
                found.push(command(s, true));
                continue;
            }
            let mut rest = raw;
            while let Some(at) = rest.find("`spindle ") {
                let after = &rest[at + 1..];
                let end = after.find('`').unwrap_or(after.len());
                found.push(command(&after[..end], false));
                rest = &after[(end + 1).min(after.len())..];
            }
        }
    }
    found
}

/// What `spindle PATH --help` lists: its flags, long and short, and its subcommands.
#[derive(Debug, Default)]
struct Help {
    flags: BTreeSet<String>,
    commands: BTreeSet<String>,
}

fn spindle() -> Command {
    let mut c = spindle_test_support::spindle_command(env!("CARGO_BIN_EXE_spindle"));
    c.stdin(Stdio::null());
    c
}

fn help(path: &[String]) -> Help {
    let out = spindle().args(path).arg("--help").output().unwrap();
    assert!(out.status.success(), "`spindle {} --help` fails:\n{}", path.join(" "), text(&out));
    let mut help = Help::default();
    let mut in_commands = false;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        if !line.starts_with(' ') {
            in_commands = line.trim() == "Commands:";
            continue;
        }
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if in_commands && indent == 2 {
            help.commands.insert(body.split_whitespace().next().unwrap().to_string());
        }
        // An option's own line: `  -o, --output <FILE>  ...` or `      --shard <I/N>  ...`;
        // the lines of its description are indented further.
        if indent <= 6 && body.starts_with('-') {
            for token in body.split_whitespace() {
                let token = token.trim_end_matches(',');
                if !token.starts_with('-') {
                    break;
                }
                help.flags.insert(token.to_string());
            }
        }
    }
    help
}

/// The subcommand path of `command` (`check`; `collect inventory`) and the flags it uses.
fn parse_command(command: &str, helps: &mut BTreeMap<Vec<String>, Help>) -> (Vec<String>, Vec<String>) {
    let tokens = words(command);
    let mut path = vec![tokens.get(1).unwrap_or(&"").to_string()];
    let sub = helps.entry(path.clone()).or_insert_with_key(|p| help(p));
    if let Some(next) = tokens.get(2).filter(|t| sub.commands.contains(**t)) {
        path.push(next.to_string());
        helps.entry(path.clone()).or_insert_with_key(|p| help(p));
    }
    let mut flags = vec![];
    for token in &tokens[1 + path.len()..] {
        if [";", "&&", "||", "|"].contains(token) {
            break;
        }
        if token.starts_with('-') && *token != "-" {
            flags.push(token.split('=').next().unwrap().to_string());
        }
    }
    (path, flags)
}

#[test]
fn every_flag_of_every_spindle_command_in_the_recipes_is_in_its_help() {
    let commands = spindle_commands();
    for (name, least) in [(GITHUB, 2), (GITLAB, 2), (KUBERNETES, 2)] {
        let whole = commands.iter().filter(|c| c.recipe == name && c.whole).count();
        assert!(whole >= least, "{name}: only {whole} spindle command lines found");
    }
    let mut helps = BTreeMap::new();
    let mut used = BTreeSet::new();
    for command in &commands {
        let (path, flags) = parse_command(&command.text, &mut helps);
        let listed = &helps[&path].flags;
        for flag in flags {
            assert!(
                listed.contains(&flag),
                "{}\n`spindle {} --help` lists no {flag}",
                command.at(),
                path.join(" ")
            );
            used.insert(format!("{} {flag}", path.join(" ")));
        }
    }
    // The flags the recipes are about, so that a reader that found nothing cannot pass.
    for expected in [
        "check --shard",
        "check --format",
        "check --inventory",
        "check -o",
        "merge -o",
        "collect inventory --out-dir",
        "collect inventory --shard",
    ] {
        assert!(used.contains(expected), "no recipe uses `spindle {expected}`: {used:?}");
    }
}

/// `command` run by `sh -c` in `cwd`, as a CI job or a pod would: `spindle` on PATH, the
/// GitHub matrix value `shard`, GitLab's node index and total and Kubernetes' completion index
/// set for shard `shard` of `count`, and every absolute path moved under `sandbox` (when given).
fn run_shell(command: &str, cwd: &Path, shard: u64, count: u64, sandbox: Option<&Path>) -> Output {
    let mut line = command.replace("${{ matrix.shard }}", &shard.to_string());
    assert!(!line.contains("${{"), "an expression this test does not know: {line}");
    if sandbox.is_some() {
        line = words(&line)
            .iter()
            .map(|w| if w.starts_with('/') { format!("\"$SANDBOX\"{w}") } else { w.to_string() })
            .collect::<Vec<_>>()
            .join(" ");
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_spindle")).parent().unwrap();
    let path = std::env::join_paths(
        [bin.to_path_buf()]
            .into_iter()
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut sh = Command::new("sh");
    sh.args(["-c", &line])
        .current_dir(cwd)
        .env("PATH", path)
        .env("SPINDLE_TODAY", "2026-11-30")
        .env("SPINDLE_SQL_PASSWORD", "not-a-secret: no server is reached")
        .env("CI_NODE_INDEX", shard.to_string())
        .env("CI_NODE_TOTAL", count.to_string())
        .env("JOB_COMPLETION_INDEX", (shard - 1).to_string())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS")
        .stdin(Stdio::null());
    if let Some(sandbox) = sandbox {
        sh.env("SANDBOX", sandbox);
    }
    sh.output().unwrap()
}

#[test]
fn every_whole_spindle_command_line_in_the_recipes_parses() {
    // An empty folder: every input the commands name is missing there, so each stops at its
    // first read, after the command line was parsed, and no inventory sends it to a server.
    let sandbox = TempDir::new().unwrap();
    let cwd = sandbox.path().join("work");
    fs::create_dir(&cwd).unwrap();
    for command in spindle_commands().iter().filter(|c| c.whole) {
        let out = run_shell(&command.text, &cwd, 1, 4, Some(sandbox.path()));
        let said = text(&out);
        assert!(out.status.code().is_some(), "{}: killed:\n{said}", command.at());
        assert!(!said.contains(USAGE_ERROR), "{}: the command line does not parse:\n{said}", command.at());
    }
}

/// The bundled examples in `dir/snapshots`, as the recipes' repositories hold their snapshots.
fn snapshots_in(dir: &Path) {
    let examples = root().join("examples");
    for example in EXAMPLES {
        let to = dir.join("snapshots").join(example);
        fs::create_dir_all(&to).unwrap();
        for f in fs::read_dir(examples.join(example)).unwrap() {
            let f = f.unwrap().path();
            fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
        }
    }
}

/// `check`, a sharded check line, without its `--shard` and writing `to`: the unsharded run.
fn unsharded(check: &str, to: &str) -> String {
    let mut out = vec![];
    let mut tokens = words(check).into_iter();
    while let Some(t) = tokens.next() {
        match t {
            "--shard" => {
                tokens.next();
            }
            "-o" => {
                tokens.next();
                out.extend(["-o", to]);
            }
            _ => out.push(t),
        }
    }
    out.join(" ")
}

/// The merged report at `merged` (exit status `merge`) is the unsharded run's, byte for byte.
fn assert_same_as_unsharded(cwd: &Path, check: &str, merge: &Output, merged: &Path) {
    let check = check.replace("${{ matrix.shard }}", "1");
    let whole = run_shell(&unsharded(&check, "unsharded.report"), cwd, 1, 1, None);
    assert_eq!(
        merge.status.code(),
        whole.status.code(),
        "merge: {}\nunsharded: {}",
        text(merge),
        text(&whole)
    );
    let (a, b) = (fs::read(cwd.join("unsharded.report")).unwrap(), fs::read(merged).unwrap());
    assert!(a == b, "the merged report is not the unsharded run's");
    serde_json::from_slice::<Value>(&b).expect("the report is JSON");
}

#[test]
fn the_github_matrix_run_on_the_examples_merges_into_the_unsharded_log() {
    let Some(docs) = yaml_documents(&recipe(GITHUB)) else { return };
    let jobs = &docs[0]["jobs"];
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    snapshots_in(cwd);

    let check = run_step(&jobs["shard"], "spindle check");
    let upload = &uses_step(&jobs["shard"], "actions/upload-artifact@v4")["with"];
    let download = str_of(&uses_step(&jobs["merge"], "actions/download-artifact@v4")["with"]["path"], "path");
    fs::create_dir(cwd.join(download)).unwrap();
    let matrix = jobs["shard"]["strategy"]["matrix"]["shard"].as_array().unwrap();
    for shard in matrix.iter().map(|v| v.as_u64().unwrap()) {
        let out = run_shell(check, cwd, shard, matrix.len() as u64, None);
        assert_eq!(out.status.code(), Some(0), "shard {shard}: {}", text(&out));
        // upload-artifact, then download-artifact with merge-multiple: the files side by side.
        let file = str_of(&upload["path"], "path").replace("${{ matrix.shard }}", &shard.to_string());
        fs::rename(cwd.join(&file), cwd.join(download).join(&file)).unwrap();
    }
    let merge_line = run_step(&jobs["merge"], "spindle merge");
    let merge = run_shell(merge_line, cwd, 1, 1, None);
    assert_eq!(merge.status.code(), Some(1), "the examples have errors: {}", text(&merge));
    let log = str_of(
        &uses_step(&jobs["merge"], "github/codeql-action/upload-sarif@v3")["with"]["sarif_file"],
        "log",
    );
    assert_same_as_unsharded(cwd, check, &merge, &cwd.join(log));
    let sarif: Value = serde_json::from_slice(&fs::read(cwd.join(log)).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn the_gitlab_pipeline_run_on_the_examples_merges_into_the_unsharded_report() {
    let Some(docs) = yaml_documents(&recipe(GITLAB)) else { return };
    let pipeline = &docs[0];
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    snapshots_in(cwd);

    let (shard, merge) = (&pipeline["spindle-shard"], &pipeline["spindle-merge"]);
    let count = shard["parallel"].as_u64().unwrap();
    let mut check = None;
    for index in 1..=count {
        // The job's script, line by line, as the runner runs it (the before_script installs the
        // release, which here is this build).
        for line in shard["script"].as_array().unwrap().iter().map(|l| str_of(l, "a script line")) {
            let out = run_shell(line, cwd, index, count, None);
            assert_eq!(out.status.code(), Some(0), "shard {index}: {line}: {}", text(&out));
            if line.starts_with("spindle check") {
                check = Some(line);
            }
        }
    }
    let merge_line = merge["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| str_of(l, "a line"))
        .find(|l| l.starts_with("spindle merge"))
        .unwrap();
    let out = run_shell(merge_line, cwd, 1, 1, None);
    assert_eq!(out.status.code(), Some(1), "the examples have errors: {}", text(&out));
    let report = cwd.join(str_of(&merge["artifacts"]["reports"]["codequality"], "codequality"));
    assert_same_as_unsharded(cwd, check.expect("a spindle check line"), &out, &report);
    let issues: Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
    assert!(issues.as_array().is_some_and(|a| !a.is_empty()), "Code Quality issues");
}
