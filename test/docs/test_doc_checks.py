#!/usr/bin/env python3
"""Tests of the two document checks on small trees made for each test: they
must find exactly the broken links and the undocumented or stale variables,
so a check that passes on the repository passes because the repository is
right, not because the check sees nothing."""

import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_doc_length  # noqa: E402
import check_env_doc  # noqa: E402
import check_links  # noqa: E402
import check_no_history  # noqa: E402
import check_scripts_index  # noqa: E402
import check_server_options  # noqa: E402
import check_sockets_doc  # noqa: E402


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))


class GithubAnchors(unittest.TestCase):
    def slug(self, heading):
        return check_links.github_slug(check_links.heading_text(heading))

    def test_punctuation_is_dropped_and_spaces_become_hyphens(self):
        self.assertEqual(self.slug("1. Build (client machine, no GPU)"),
                         "1-build-client-machine-no-gpu")
        self.assertEqual(self.slug("llama.cpp results, run 5 (2026-11-22)"),
                         "llamacpp-results-run-5-2026-11-22")

    def test_code_and_links_keep_their_text(self):
        self.assertEqual(self.slug("The `RC_STATS` keys"), "the-rc_stats-keys")
        self.assertEqual(self.slug("See [docs](x.md) **now**"), "see-docs-now")

    def test_repeated_headings_are_numbered(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"a.md": "# Notes\n\n## Notes\n\n## Notes\n"})
            anchors = [v for _, kind, v in check_links.scan(
                os.path.join(root, "a.md")) if kind == "anchor"]
        self.assertEqual(anchors, ["notes", "notes-1", "notes-2"])


class LinkCheck(unittest.TestCase):
    def problems(self, files):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, files)
            return check_links.check(root)[0]

    def test_good_links_pass(self):
        self.assertEqual(self.problems({
            "README.md": """\
                # Top
                [doc](docs/a.md), [section](docs/a.md#second-part),
                [here](#top), [folder](docs/), [code](src/x.cpp#L3),
                [web](https://example.com/missing), [mail](mailto:a@b)
                [ref]: docs/a.md#first
                """,
            "docs/a.md": "# First\n\n## Second part\n\n[up](../README.md)\n",
            "src/x.cpp": "int x;\n",
        }), [])

    def test_each_broken_link_is_reported_with_its_line(self):
        problems = self.problems({
            "README.md": """\
                # Top
                [gone](docs/missing.md)
                [bad anchor](docs/a.md#third)
                [self](#nowhere)
                [out](../outside.md)
                [ref]: docs/also-missing.md
                """,
            "docs/a.md": "# First\n",
        })
        self.assertEqual(len(problems), 5, problems)
        self.assertTrue(problems[0].startswith("README.md:2: link to "
                                               "docs/missing.md"))
        self.assertIn("has no heading with anchor #third", problems[1])
        self.assertIn("README.md:4:", problems[2])
        self.assertIn("leaves the repository", problems[3])
        self.assertIn("README.md:6:", problems[4])

    def test_links_inside_code_are_text(self):
        self.assertEqual(self.problems({
            "a.md": """\
                # A

                ```
                [not a link](missing.md)
                ```

                    [indented code](missing.md)

                `[span](missing.md)` and text
                """,
        }), [])

    def test_indented_list_continuations_are_checked(self):
        problems = self.problems({
            "a.md": "# A\n\n- item\n\n    [continued](missing.md)\n",
        })
        self.assertEqual(len(problems), 1, problems)


class EnvironmentDocCheck(unittest.TestCase):
    DOC = """\
        # Environment
        | variable | default | meaning |
        |---|---|---|
        | `RC_KNOWN` | 1 | a knob |
        | `RC_A`, `RC_B` | 0 | two knobs |
        | `WORK` | x | a script input |
        | `VARIANTS_<config>` | | per configuration |
        """

    def problems(self, files):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, dict(files, **{"docs/environment.md": self.DOC}))
            return check_env_doc.check(root)[0]

    def test_documented_reads_pass(self):
        self.assertEqual(self.problems({
            "runtime/src/a.cpp": 'long n = envLong("RC_KNOWN", 5);\n'
                                 'const char *a = getenv("RC_A");\n',
            "driver/d.py.in": 'os.environ.get("RC_B")\n',
            "bench/run.sh": 'W="${WORK:-x}"; v="${VARIANTS_shm:-}"\n',
        }), [])

    def test_an_undocumented_read_is_reported_where_it_is(self):
        problems = self.problems({
            "runtime/src/a.cpp": 'long n = envLong("RC_KNOWN", 5);\n'
                                 'const char *a = getenv("RC_A");\n'
                                 'os = envLong("RC_B", 1) + envLong("RC_NEW", 2);\n',
            "gpu-server/src/b.cpp": 'x = std::getenv("HOME");\n',
            "bench/t.sh": 'echo "${FRESH:-1}" "$NOT_AN_INPUT"\n',
            "tools/x.py": 'os.getenv("PY_VAR")\n',
        })
        self.assertEqual(sorted(problems), [
            "bench/t.sh:1: reads FRESH, which docs/environment.md does "
            "not list",
            "gpu-server/src/b.cpp:1: reads HOME, which docs/environment.md "
            "does not list",
            "runtime/src/a.cpp:3: reads RC_NEW, which docs/environment.md "
            "does not list",
            "tools/x.py:1: reads PY_VAR, which docs/environment.md does "
            "not list",
        ])

    def test_rc_literals_count_only_in_the_components(self):
        self.assertEqual(self.problems({
            "runtime/src/a.cpp": 'f("RC_KNOWN"); g("RC_A"); h("RC_B");\n',
            "test/unit/t.cpp": 'setenv("RC_ONLY_A_TEST_VALUE", "1", 1);\n',
        }), [])

    def test_a_listed_variable_nothing_reads_is_stale(self):
        problems = self.problems({
            "runtime/src/a.cpp": 'f("RC_KNOWN"); g("RC_A");\n',
        })
        self.assertEqual(problems, ["docs/environment.md: lists RC_B, which "
                                    "nothing in the repository reads"])

    DEV_DOC = """\
        # Environment
        | variable | default | meaning |
        |---|---|---|
        | `RC_KNOWN` | 1 | a knob |
        | `RC_DEV_MISPLACED` | 1 | a developer's switch among users' |
        | `RC_TESTONLY` | 1 | a test's input |
        ## Unsupported, for developers
        | variable | default | meaning |
        |---|---|---|
        | `RC_DEV_AB` | 1 | an A/B switch |
        | `RC_HIDDEN` | 1 | a user's knob among developers' |
        ## Tests
        | variable | default | meaning |
        |---|---|---|
        | `RC_DEV_AFTER` | 1 | after the section |
        """

    COUNTED_DOC = """\
        # Environment
        | variable | default | meaning |
        |---|---|---|
        | `RC_KNOWN`, `RC_A` | 1 | knobs |
        | `RC_TESTONLY` | 1 | a test's input |
        ## Unsupported, for developers
        | variable | default | meaning |
        |---|---|---|
        | `RC_DEV_AB` | 1 | an A/B switch |
        """

    def dev_check(self, files, max_users=25, doc=DEV_DOC):
        saved = check_env_doc.MAX_USER_FACING
        check_env_doc.MAX_USER_FACING = max_users
        try:
            with tempfile.TemporaryDirectory() as root:
                write_tree(root, dict(files, **{"docs/environment.md": doc}))
                return check_env_doc.check(root)
        finally:
            check_env_doc.MAX_USER_FACING = saved

    def test_developer_switches_live_in_their_section_only(self):
        problems, _ = self.dev_check({
            "runtime/src/a.cpp": 'f("RC_KNOWN"); f("RC_DEV_MISPLACED");\n'
                                 'f("RC_DEV_AB"); f("RC_HIDDEN");\n'
                                 'f("RC_DEV_AFTER");\n',
            "test/unit/t.cpp": 'getenv("RC_TESTONLY");\n',
        })
        self.assertEqual(sorted(problems), [
            "docs/environment.md: lists RC_DEV_AFTER outside "
            "'## Unsupported, for developers'",
            "docs/environment.md: lists RC_DEV_MISPLACED outside "
            "'## Unsupported, for developers'",
            "docs/environment.md: lists RC_HIDDEN under '## Unsupported, for "
            "developers', which holds RC_DEV_* variables only",
        ])

    def test_user_facing_variables_are_counted_and_capped(self):
        files = {
            "runtime/src/a.cpp": 'f("RC_KNOWN"); f("RC_A");\n'
                                 'f("RC_DEV_AB");\n',
            # A test's variable is not the product's: not counted.
            "test/unit/t.cpp": 'getenv("RC_TESTONLY");\n',
        }
        problems, summary = self.dev_check(files, 2, self.COUNTED_DOC)
        self.assertEqual(problems, [])
        self.assertIn("2 of them user-facing RC_* (at most 2): RC_A, "
                      "RC_KNOWN", summary)
        problems, _ = self.dev_check(files, 1, self.COUNTED_DOC)
        self.assertEqual(problems, [
            "docs/environment.md: the components read 2 user-facing RC_* "
            "variables, at most 1 allowed (make a developer's switch "
            "RC_DEV_*, or delete one): RC_A, RC_KNOWN"])


class LengthCheck(unittest.TestCase):
    def test_only_pages_past_the_limit_are_reported(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"docs/short.md": "line\n" * 300,
                              "docs/long.md": "line\n" * 301,
                              "long.txt": "line\n" * 999})
            problems, count = check_doc_length.check(root)
        self.assertEqual(problems, ["docs/long.md: 301 lines, more than 300"])
        self.assertEqual(count, 2)


class ServerOptionsCheck(unittest.TestCase):
    HELP = ("usage: rc-server --listen URL\n\n"
            "  --listen URL  where\n  --metrics FILE  counters\n"
            "  --help  this text\n")

    def page(self, synopsis, rows):
        return ("# rc-server\n\n## Options\n\n```\n" + synopsis +
                "\n```\n\n| option | meaning |\n|---|---|\n" +
                "".join(f"| `{r}` | x |\n" for r in rows) +
                "\n## Start-up\n\n| `--later` | not options |\n")

    def test_a_page_that_matches_passes(self):
        self.assertEqual(check_server_options.compare(
            self.HELP, self.page("rc-server --listen URL [--metrics FILE]",
                                 ["--listen URL", "--metrics FILE"])), [])

    def test_missing_and_extra_options_are_named(self):
        problems = check_server_options.compare(
            self.HELP, self.page("rc-server --listen URL [--gone]",
                                 ["--listen URL", "--gone"]))
        self.assertEqual(problems, [
            "docs/server.md: the synopsis lacks --metrics",
            "docs/server.md: the options table has no row for --metrics",
            "docs/server.md: documents --gone, which rc-server --help does "
            "not explain"])


class SocketsCheck(unittest.TestCase):
    SOURCES = {
        "transport/src/lanes.cpp": "if (::listen(fd, 4) != 0) return;\n",
        "gpu-server/src/main.cpp": "auto l = transport::listen(url, &e);\n",
        "gpu-server/src/executor.cpp": "OpStatus st = bind(device);\n",
        "test/unit/t.cpp": "::listen(fd, 1);\n",
    }

    def problems(self, section):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, dict(self.SOURCES, **{
                "docs/security.md": "# S\n\n## Who can reach the port\n\n"
                                    + section + "\n## Next\n\n"
                                    "transport/src/lanes.cpp\n"}))
            return check_sockets_doc.check(root)[0]

    def test_named_places_pass(self):
        self.assertEqual(self.problems(
            "`transport/src/lanes.cpp`, `gpu-server/src/main.cpp`\n"), [])

    def test_an_unnamed_place_is_reported_where_it_is(self):
        self.assertEqual(self.problems("`gpu-server/src/main.cpp`\n"), [
            "transport/src/lanes.cpp:1: ::listen opens an endpoint "
            "docs/security.md's 'Who can reach the port' does not name"])


class HistoryCheck(unittest.TestCase):
    def problems(self, text):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"src/a.cpp": text})
            return check_no_history.check(root)[0]

    def test_history_is_reported_with_its_line(self):
        for text in ("// see docs/notes/x.md\n", "// (issue 4): why\n",
                     "x = 1  # measured in session 12\n",
                     "results/2026-11-25-gpu-s11.json\n",
                     "one work period later\n"):
            problems = self.problems("int a;\n" + text)
            self.assertEqual(len(problems), 1, text)
            self.assertTrue(problems[0].startswith("src/a.cpp:2: names "),
                            problems[0])

    def test_product_words_pass(self):
        self.assertEqual(self.problems(
            "// clang 19 swaps them (LLVM issue 131415)\n"
            "// rc-server: session 3 (app pid 4121) closed\n"
            "// session 1: cudaDeviceSynchronize failed\n"
            "// a decode token issues 13 syncs\n"
            "// every session's context\n"), [])


class ScriptsIndexCheck(unittest.TestCase):
    def problems(self, index):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"scripts/README.md": index,
                              "scripts/build.sh": "#!/bin/sh\n",
                              "bench/run.sh": "#!/bin/sh\n",
                              "tools/gen.py.in": "x\n",
                              "src/a.cpp": "int a;\n"})
            return check_scripts_index.check(root)[0]

    def test_listed_by_section_or_path_passes(self):
        self.assertEqual(self.problems(
            "# S\n\n## scripts/: here\n\n| `build.sh` |\n\n"
            "## bench/: there\n\n| `run.sh` |\n\n"
            "## Generators\n\n| `tools/gen.py.in` |\n"), [])

    def test_a_name_in_another_folders_section_does_not_count(self):
        self.assertEqual(self.problems(
            "# S\n\n## scripts/: here\n\n| `build.sh` | `run.sh` |\n"), [
            "bench/run.sh: not listed in scripts/README.md",
            "tools/gen.py.in: not listed in scripts/README.md"])


if __name__ == "__main__":
    unittest.main()
