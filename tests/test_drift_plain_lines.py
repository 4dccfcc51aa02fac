"""Cited lines too plain to follow across the tree (issue 47): ``): ...`` or ``} catch (err) {``
stand in hundreds of files of a real repository, and a cited line gone from its file once
passed as "relocated" to one of them far away (3,047 places for one line of a stub
package). Fewer than 40 letters and digits (git blame -C's own bound for lines moved between
files) are looked for in their folder only, which also spares a read of the whole tree.
A quotation as short is followed into its folder and into the files changed by the commit
that removed it (a move is one commit): ``def timeout(self): ...`` passed as relocated to
another project's stub on typeshed once its own line had gained a return type."""

from __future__ import annotations

from test_drift import cited, classify

from pytest_memreport.checks import drift
from pytest_memreport.checks.drift import search, wordindex
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange

STUB = "def open_pool(\n    size: int,\n): ...\n"
ELSEWHERE = {f"vendor/lib{n}/api.pyi": f"def call_{n}(\n    arg: str,\n): ...\n" for n in range(6)}


def test_a_plain_line_gone_from_its_file_is_not_relocated_to_a_file_far_away(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": STUB, **ELSEWHERE}, "pin")
    repo.commit({"pkg/pool.pyi": "def open_pool(size: int) -> None: ...\n"}, "one line")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(3, 3)), pin)

    assert result.status == drift.CHANGED and result.status not in drift.PASSING
    message = "\n".join(result.explain())
    assert "they hold no letter or digit, nothing to follow them by" in message


def test_a_plain_line_with_letters_is_looked_for_in_its_folder_only(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": STUB, **ELSEWHERE}, "pin")
    repo.commit({"pkg/pool.pyi": "def open_pool(count: int) -> None: ...\n",
                 "vendor/lib9/api.pyi": "def call_9(\n    size: int,\n): ...\n"}, "one line")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(2, 2)), pin)

    assert result.status == drift.CHANGED
    message = "\n".join(result.explain())
    assert "no other file of pkg/ holds them" in message and "their 7 letters and digits" in message
    assert "git blame -C asks for 40" in message


def test_lines_without_a_letter_are_not_followed_even_into_a_sibling(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": STUB, "pkg/other.pyi": "def other(\n    x: int,\n): ...\n"}, "pin")
    repo.commit({"pkg/pool.pyi": "def open_pool(size: int) -> None: ...\n"}, "one line")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(3, 3)), pin)

    assert result.status == drift.CHANGED and not result.candidates[1:]


def test_a_plain_line_moved_into_a_sibling_file_is_relocated_there(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": "import os\n" + STUB, **ELSEWHERE}, "pin")
    repo.commit({"pkg/pool.pyi": "from ._impl import open_pool\n", "pkg/_impl.pyi": "import os\n\n" + STUB},
                "split the module")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(3, 3)), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("pkg/_impl.pyi", LineRange(4, 4)),)


def test_a_plain_line_whose_file_is_gone_is_deleted_though_other_folders_hold_it(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": STUB, **ELSEWHERE}, "pin")
    repo.delete("pkg/pool.pyi")
    repo.commit(message="drop the stub")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(2, 2)), pin)

    assert result.status == drift.DELETED
    assert "too few to follow them further" in "\n".join(result.explain())


def test_lines_with_enough_letters_are_still_followed_anywhere(make_repo):
    block = "def rebalance_shards(\n    shard_count: int,\n    replication_factor: int,\n): ...\n"
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": block, **ELSEWHERE}, "pin")
    repo.commit({"pkg/pool.pyi": "X: int\n", "vendor/shards/balance.pyi": "import os\n" + block}, "moved far")

    result = classify(repo, cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(1, 4)), pin)

    assert search.letters_and_digits(block.split("\n")) >= search.FOLLOW_ALNUM
    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("vendor/shards/balance.pyi", LineRange(2, 5)),)


def test_plain_lines_make_no_search_of_the_tree(make_repo):
    """The folder is read, not the tree: the word index reads no file and runs no scan."""
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": STUB, **ELSEWHERE}, "pin")
    head = repo.commit({"pkg/pool.pyi": "def open_pool(size: int) -> None: ...\n"}, "one line")
    evidence = cited(EvidenceKind.LINES, "pkg/pool.pyi", LineRange(3, 3))

    with GitStore.open(repo.path) as store:
        from pytest_memreport.checks import verify
        pin_result = verify.check_at_pin(evidence, store.snapshot(pin))
        against = store.snapshot(head)
        announced = search.expect_searches(against, store, pin, [(evidence, pin_result.recorded_text)])
        result = drift.classify(evidence, pin_result, store, pin, against)
        index = wordindex.word_index(against)
        assert (announced, index.files_read, index.files_tested) == ([], 0, 0)
    assert result.status == drift.CHANGED


HEALTH = "class Healthcheck:\n    @property\n    def timeout(self): ...\n"
FAR = {f"stubs/lib{n}/db.pyi": f"class Database{n}:\n    def timeout(self): ...\n" for n in range(4)}


def quotation(path: str, text: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line=20, end_line=20, text=text)


def test_a_plain_quotation_gone_from_its_file_is_not_relocated_to_another_projects_file(make_repo):
    repo = make_repo()
    pin = repo.commit({"stubs/docker/health.pyi": HEALTH, **FAR}, "pin")
    culprit = repo.commit({"stubs/docker/health.pyi": HEALTH.replace("(self):", "(self) -> int | None:")},
                          "annotate the timeout")

    result = classify(repo, quotation("stubs/docker/health.pyi", "def timeout(self): ..."), pin)

    assert result.status == drift.CHANGED and result.broken_by.sha == culprit
    message = "\n".join(result.explain())
    assert "stubs/lib0/db.pyi, stubs/lib1/db.pyi" in message
    assert "hold it, but the commit that removed it moved it to none of them, and its 14 letters and digits" in message


def test_a_plain_quotation_moved_into_a_sibling_file_is_relocated_there(make_repo):
    repo = make_repo()
    pin = repo.commit({"stubs/docker/health.pyi": HEALTH, **FAR}, "pin")
    repo.commit({"stubs/docker/health.pyi": "from ._base import Healthcheck as Healthcheck\n",
                 "stubs/docker/_base.pyi": "import os\n\n" + HEALTH}, "a base module")

    result = classify(repo, quotation("stubs/docker/health.pyi", "def timeout(self): ..."), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("stubs/docker/_base.pyi", LineRange(5, 5)),)


def test_a_quotation_with_enough_letters_is_still_followed_anywhere(make_repo):
    line = "    def rebalance_shards(self, shard_count: int, replication_factor: int) -> None: ..."
    repo = make_repo()
    pin = repo.commit({"pkg/pool.pyi": f"class Pool:\n{line}\n", **FAR}, "pin")
    repo.commit({"pkg/pool.pyi": "class Pool: ...\n", "vendor/shards/balance.pyi": f"class Shards:\n{line}\n"},
                "moved far")

    result = classify(repo, quotation("pkg/pool.pyi", line.strip()), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("vendor/shards/balance.pyi", LineRange(2, 2)),)



def test_a_plain_quotation_moved_far_by_the_commit_that_removed_it_is_relocated_there(make_repo):
    """A move is one commit: the files the commit that removed the quote changed are where
    it may have gone, however far (as git blame -C follows lines between the files of a
    commit)."""
    repo = make_repo()
    pin = repo.commit({"stubs/docker/health.pyi": HEALTH, **FAR}, "pin")
    repo.commit({"stubs/docker/health.pyi": "class Healthcheck: ...\n",
                 "vendor/compat/timeouts.pyi": "class Timeouts:\n    def timeout(self): ...\n"}, "move it")

    result = classify(repo, quotation("stubs/docker/health.pyi", "def timeout(self): ..."), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("vendor/compat/timeouts.pyi", LineRange(2, 2)),)


def test_a_plain_quotation_is_not_relocated_to_a_page_the_same_commit_edited(make_repo):
    """A commit that modernises the code and touches the tutorial: the page's example still
    shows the old line, and is not where the code went."""
    repo = make_repo()
    old = "class Recorder(object):\n    called = False\n"
    pin = repo.commit({"tests/test_db.py": old, "docs/tutorial.rst": f"Intro\n\n.. code-block::\n\n    {old}"}, "pin")
    repo.commit({"tests/test_db.py": old.replace("(object)", ""),
                 "docs/tutorial.rst": f"Introduction\n\n.. code-block::\n\n    {old}"}, "python 3 classes")

    result = classify(repo, quotation("tests/test_db.py", "class Recorder(object):"), pin)

    assert result.status == drift.CHANGED
    assert "docs/tutorial.rst holds it, but the commit that removed it did not move it there" in \
        "\n".join(result.explain())


ROUTE = "app.get('/', function(req, res){\n  res.send('ok');\n});\n"
SIBLINGS = {f"test/route{n}.js": f"var app = express();\n\n{ROUTE}" for n in range(3)}


def test_a_plain_quotation_is_not_relocated_to_siblings_that_held_it_at_the_pin(make_repo):
    """A test file's route handler removed: every other test file of its folder held the same
    line before, and none of those copies is where it went (express's ``app.get('/',
    function(req, res){``, once "relocated" to 19 places in 8 other test files)."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE + "\nmodule.exports = app;\n",
                       **SIBLINGS}, "pin")
    culprit = repo.commit({"test/redirect.js": "var app = express();\n\nmodule.exports = app;\n"},
                          "remove relative redirects")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.CHANGED and result.broken_by.sha == culprit
    assert "test/route0.js, test/route1.js, test/route2.js held it at the pin already (a copy that stood there " \
           "is not where it went)" in "\n".join(result.explain())


def test_a_plain_quotation_copied_into_a_new_sibling_before_it_left_is_relocated_there(make_repo):
    """Copied into a new module by one commit, removed from its own by a later one (the
    modelcontextprotocol servers' ``expandHome``, copied into ``path-utils.ts`` by one pull
    request and removed from ``index.ts`` by another): the new file is where it went."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.commit({"test/helpers.js": "// shared\n" + ROUTE}, "a shared helper")
    repo.commit({"test/redirect.js": "var app = express();\n"}, "use the helper")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("test/helpers.js", LineRange(2, 2)),)


def test_a_plain_quotation_is_not_relocated_to_a_file_its_commit_edited_that_held_it_already(make_repo):
    """The commit that removed it also edited a sibling holding the same line since before
    the pin: that copy stood there already, and is not where it went."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.commit({"test/redirect.js": "var app = express();\n",
                 "test/route1.js": "'use strict';\n" + SIBLINGS["test/route1.js"]}, "strict tests")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.CHANGED
    assert "test/route0.js, test/route1.js, test/route2.js held it at the pin already" in "\n".join(result.explain())


def test_a_plain_quotation_moved_into_a_sibling_that_held_a_copy_is_relocated_there(make_repo):
    """Where a sibling holds one more copy than at the pin, the code went there."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.commit({"test/redirect.js": "var app = express();\n",
                 "test/route1.js": SIBLINGS["test/route1.js"] + "\n" + ROUTE}, "merge the redirect tests")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("test/route1.js", LineRange(3, 3)), drift.Place("test/route1.js", LineRange(7, 7)))


def test_plain_cited_lines_are_not_relocated_to_siblings_that_held_them_at_the_pin(make_repo):
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.commit({"test/redirect.js": "var app = express();\n"}, "remove relative redirects")

    result = classify(repo, cited(EvidenceKind.LINES, "test/redirect.js", LineRange(3, 5)), pin)

    assert result.status == drift.CHANGED
    assert "the other files of test/ holding them held them at the pin already (not where they went)" in \
        "\n".join(result.explain())


def test_plain_cited_lines_are_not_relocated_to_a_sibling_their_commit_edited_that_held_them(make_repo):
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.commit({"test/redirect.js": "var app = express();\n",
                 "test/route1.js": "'use strict';\n" + SIBLINGS["test/route1.js"]}, "strict tests")

    result = classify(repo, cited(EvidenceKind.LINES, "test/redirect.js", LineRange(3, 5)), pin)

    assert result.status == drift.CHANGED
    assert "the other files of test/ holding them held them at the pin already" in "\n".join(result.explain())


def test_a_sibling_renamed_since_the_pin_is_no_new_file(make_repo):
    """A test file renamed since the pin held the line under its old name: not a new file,
    and not where the line went (express's ``req.acceptsEncoding.js``, renamed
    ``req.acceptsEncodings.js``)."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": "var app = express();\n\n" + ROUTE, **SIBLINGS}, "pin")
    repo.move("test/route1.js", "test/routes.js")
    repo.commit(message="plural names")
    repo.commit({"test/redirect.js": "var app = express();\n"}, "remove relative redirects")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.CHANGED
    assert "test/routes.js" in "\n".join(result.explain())


def _inside(name: str) -> str:
    return f"function {name}(app) {{\n  " + ROUTE.replace("\n", "\n  ").rstrip() + "\n  return app;\n}\n"


def test_boilerplate_a_later_test_file_repeats_is_not_where_a_plain_quotation_went(make_repo):
    """A test file added since the pin repeats the line in a test of its own; the commit
    that removed the quoted line never touched it: not where it went (express's new
    ``req.acceptsEncodings.js``)."""
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": _inside("create")}, "pin")
    repo.commit({"test/encodings.js": _inside("encodings")}, "encodings tests")
    repo.commit({"test/redirect.js": "function create(app) {\n  return app;\n}\n"}, "remove relative redirects")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.CHANGED
    assert "test/encodings.js" in "\n".join(result.explain())


def test_a_plain_quotation_copied_with_its_definition_before_it_left_is_relocated_there(make_repo):
    repo = make_repo()
    pin = repo.commit({"test/redirect.js": _inside("create")}, "pin")
    repo.commit({"test/support.js": "// shared\n" + _inside("create")}, "a shared create")
    repo.commit({"test/redirect.js": "var create = require('./support');\n"}, "use it")

    result = classify(repo, quotation("test/redirect.js", "app.get('/', function(req, res){"), pin)

    assert result.status == drift.RELOCATED
    assert result.candidates == (drift.Place("test/support.js", LineRange(3, 3)),)


def test_a_plain_quotation_several_new_files_repeat_is_not_relocated(make_repo):
    """A rewrite that deletes a class and adds three, each with a constructor: the plain
    line each repeats says nothing of where the deleted one went (guzzle 6's
    ``public function __construct(``)."""
    klass = "<?php\nclass {name}\n{{\n    public function __construct(\n        $value\n    ) {{\n    }}\n}}\n"
    repo = make_repo()
    pin = repo.commit({"src/Post/PostFile.php": klass.format(name="PostFile")}, "pin")
    repo.commit({"src/Post/PostFile.php": "<?php\nfunction post_file($value) {\n    return $value;\n}\n",
                 **{f"src/{name}.php": klass.format(name=name) for name in ("Client", "Pool", "Middleware")}},
                "version 6")

    result = classify(repo, quotation("src/Post/PostFile.php", "public function __construct("), pin)

    assert result.status == drift.CHANGED
    assert "src/Client.php, src/Middleware.php, src/Pool.php each gained a copy of it, and it is too plain to tell " \
           "which one it went to" in "\n".join(result.explain())
