"""Capture fixtures for the shipped declarative filters (graphs/filters/*.yaml) by running the real
tools on small projects and files written here, in a temp folder.

Every tool family gets a success run and, where the tool can fail, a failing run. The commands are
run through ``bash -c`` exactly as recorded in the case's ``command`` (an agent's command line);
``must_keep`` holds the lines an agent needs (errors, failures, locations, summary counts), picked
by regex from the real output, never written by hand.

Tools come from PyPI (a venv given by ``--pyvenv``, default /tmp/ftools: black bandit coverage build
ansible-core ansible-lint pre-commit poetry sphinx), npm (``--nodemods``, default
/tmp/nodetools/node_modules: jest vitest mocha prettier webpack webpack-cli), Debian (rsync shellcheck ant meson ninja-build cppcheck ruby-rspec rubocop bundler valgrind cmake perl php-cli phpunit) and the
machine (terraform, mvn with a filled ~/.m2). A family whose tool is missing is skipped with a note.

Usage: ``python benchmarks/capture_filters.py [FAMILY ...]`` writes tests/fixtures/<family>-*.json.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import textwrap

from capture_fixtures import save

SRC = "benchmarks/capture_filters.py"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ENV: dict[str, str] = {}


def sh(command: str, cwd: str, timeout: int = 600) -> tuple[int, str, str]:
    """Run ``command`` with bash in ``cwd``; (exit code, stdout, stderr)."""
    p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                       env=ENV, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def write(root: str, files: dict[str, str]) -> str:
    """Write ``files`` (relative path → text, dedented) under ``root``; return ``root``."""
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text).lstrip("\n"))
    return root


def lines(text: str, pattern: str) -> list[str]:
    """The lines of ``text`` that match ``pattern`` (trailing blanks removed)."""
    rx = re.compile(pattern)
    return [ln.rstrip() for ln in text.splitlines() if rx.search(ln)]


def fact(line: str) -> str:
    """The agent-visible text of ``line``: with colour codes, its longest uncoloured run (found
    verbatim whether or not the codes are stripped later)."""
    if "\x1b" not in line:
        return line
    return max((part.strip() for part in ANSI.split(line)), key=len)


def capture(family: str, slug: str, command: str, cwd: str, keep: str, note: str,
            expect_fail: bool | None = None, timeout: int = 600) -> dict:
    """Run ``command``, pick the ``keep`` lines as facts, save ``<family>-<slug>.json``."""
    code, out, err = sh(command, cwd, timeout)
    if expect_fail is not None and (code != 0) != expect_fail:
        raise SystemExit(f"{family}-{slug}: exit {code} (expected {'failure' if expect_fail else 'success'})"
                         f"\n{out[-1500:]}\n{err[-1500:]}")
    facts = list(dict.fromkeys(f for f in (fact(ln) for ln in lines(out + "\n" + err, keep)) if f))
    case = {"id": f"{family}-{slug}", "class": family, "command": command, "exit_code": code,
            "stdout": out.replace(cwd, "/home/dev/proj"), "stderr": err.replace(cwd, "/home/dev/proj"),
            "must_keep": [f.replace(cwd, "/home/dev/proj") for f in facts], "verbatim": False,
            "source": f"{SRC}: {note}"}
    save(case)
    print(f"{case['id']}: exit {code}, {len(out) + len(err)} chars, {len(facts)} facts")
    return case


def tmpdir(base: str, name: str) -> str:
    path = os.path.join(base, name)
    os.makedirs(path, exist_ok=True)
    return path


# --------------------------------------------------------------------------------------------
def terraform(base: str) -> None:
    rc = write(base, {"terraformrc": "disable_checkpoint = true\n"})
    ENV["TF_CLI_CONFIG_FILE"] = os.path.join(rc, "terraformrc")
    d = write(tmpdir(base, "tf"), {"main.tf": '''
        terraform {
          required_version = ">= 1.0"
        }
        variable "names" {
          default = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
        }
        resource "terraform_data" "node" {
          for_each = toset(var.names)
          input    = { name = each.key, size = length(each.key) }
        }
        resource "terraform_data" "cluster" {
          input = [for n in terraform_data.node : n.output.name]
        }
        output "cluster_members" {
          value = terraform_data.cluster.output
        }
        '''})
    capture("terraform", "init", "terraform init", d, r"Terraform has been successfully initialized",
            "terraform init of a config that uses only the built-in provider", False)
    capture("terraform", "plan", "terraform plan", d, r"^Plan: |will be created",
            "terraform plan creating 7 terraform_data resources", False)
    capture("terraform", "apply", "terraform apply -auto-approve", d,
            r"^Apply complete|cluster_members = \[", "terraform apply of the same config", False)
    capture("terraform", "plan-nochange", "terraform plan", d, r"No changes",
            "terraform plan after apply: nothing to do", False)
    bad = write(tmpdir(base, "tf-bad"), {"main.tf": '''
        resource "terraform_data" "a" {
          input = var.missing
        }
        resource "terraform_data" "b" {
          input = terraform_data.nope.output
        }
        output "x" {
          value = local.undefined_local
        }
        output "y" {
          value = var.region
        }
        output "z" {
          value = terraform_data.c.output
        }
        output "w" {
          value = module.net.id
        }
        '''})
    sh("terraform init -no-color", bad)
    capture("terraform", "plan-fail", "terraform plan", bad,
            r"Error: |on main\.tf line \d+", "terraform plan on the config with undeclared references", True)
    mod = write(tmpdir(base, "tf-mod"), {"main.tf": '''
        module "net" {
          source = "./modules/net"
        }
        resource "terraform_data" "x" {
          input = module.net.id
        }
        '''})
    capture("terraform", "init-fail", "terraform init", mod, r"Error: |on main\.tf line \d+|modules/net",
            "terraform init of a config whose module folder does not exist", True)
    capture("terraform", "validate-fail", "terraform validate", bad,
            r"Error: |on main\.tf line \d+|An input variable|A managed resource|local value",
            "terraform validate on a config with six undeclared references", True)
    fmt = write(tmpdir(base, "tf-fmt"), {"a.tf": 'resource "terraform_data" "x" {\ninput="a"\n  }\n',
                                         "b.tf": 'output   "y"   {\n value = 1\n}\n',
                                         "c.tf": 'locals {\n  ok = true\n}\n'})
    capture("terraform", "fmt-check-fail", "terraform fmt -check", fmt, r"\.tf$",
            "terraform fmt -check listing the unformatted files", True)


# --------------------------------------------------------------------------------------------
POM = '''
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.example</groupId>
  <artifactId>calc</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>17</maven.compiler.source>
    <maven.compiler.target>17</maven.compiler.target>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId>
      <version>3.13.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId>
      <version>3.2.5</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId>
      <version>3.3.1</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId>
      <version>3.4.1</version></plugin>
  </plugins></build>
</project>
'''
CALC = '''
package dev.example;

public class Calc {
    public static int add(int a, int b) { return a + b; }
    public static int div(int a, int b) { return a / b; }
}
'''
CALC_TEST = '''
package dev.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import org.junit.jupiter.api.Test;

class CalcTest {
    @Test void adds() { assertEquals(4, Calc.add(2, 2)); }
    @Test void addsWrong() { assertEquals(5, Calc.add(2, 2), "two plus two"); }
    @Test void divides() { assertEquals(2, Calc.div(4, 2)); }
    @Test void dividesByZero() { assertEquals(0, Calc.div(1, 0)); }
}
'''


def mvn(base: str) -> None:
    d = write(tmpdir(base, "mvn-ok"), {"pom.xml": POM, "src/main/java/dev/example/Calc.java": CALC,
                                       "src/test/java/dev/example/CalcTest.java":
                                       CALC_TEST.replace('assertEquals(5, Calc', 'assertEquals(4, Calc')
                                       .replace("assertEquals(0, Calc.div(1, 0))",
                                                "assertEquals(3, Calc.div(9, 3))")})
    capture("mvn", "package", "mvn -o package", d, r"BUILD SUCCESS|Tests run: \d+, Failures",
            "mvn package (offline) of a small project whose tests pass", False)
    d = write(tmpdir(base, "mvn-test"), {"pom.xml": POM, "src/main/java/dev/example/Calc.java": CALC,
                                         "src/test/java/dev/example/CalcTest.java": CALC_TEST})
    capture("mvn", "test-fail", "mvn -o test", d,
            r"Tests run: .*Fail|FAILURE|ERROR\]\s+CalcTest|expected:|ArithmeticException|BUILD FAILURE",
            "mvn test with a failing assertion and an exception", True)
    d = write(tmpdir(base, "mvn-compile"), {"pom.xml": POM, "src/main/java/dev/example/Calc.java":
                                            CALC.replace("return a + b;", "return a + c;")
                                            .replace("return a / b; }", "return a / b }")})
    capture("mvn", "compile-fail", "mvn -o compile", d,
            r"\[ERROR\] /.*\.java|COMPILATION ERROR|BUILD FAILURE", "mvn compile with two compile errors",
            True)


# --------------------------------------------------------------------------------------------
BUILD_XML = '''
<project name="calc" default="jar" basedir=".">
  <target name="clean"><delete dir="build"/></target>
  <target name="compile">
    <mkdir dir="build/classes"/>
    <javac srcdir="src" destdir="build/classes" includeantruntime="false" debug="true"/>
  </target>
  <target name="jar" depends="compile">
    <jar destfile="build/calc.jar" basedir="build/classes"/>
  </target>
</project>
'''


def ant(base: str) -> None:
    src = {f"src/dev/example/C{i}.java": f"package dev.example;\npublic class C{i} {{ int v() {{ return {i}; }} }}\n"
           for i in range(12)}
    d = write(tmpdir(base, "ant-ok"), {"build.xml": BUILD_XML, **src})
    capture("ant", "jar", "ant jar", d, r"BUILD SUCCESSFUL", "ant compiling 12 classes into a jar", False)
    bad = dict(src)
    bad["src/dev/example/C3.java"] = "package dev.example;\npublic class C3 { int v() { return undefinedName; } }\n"
    bad["src/dev/example/C7.java"] = "package dev.example;\npublic class C7 { String v() { return 7; } }\n"
    d = write(tmpdir(base, "ant-bad"), {"build.xml": BUILD_XML, **bad})
    capture("ant", "compile-fail", "ant", d, r"\.java:\d+: error|BUILD FAILED|errors?$|symbol:",
            "ant with two javac errors", True)


# --------------------------------------------------------------------------------------------
def rsync(base: str) -> None:
    src = tmpdir(base, "src")
    for i in range(40):
        write(src, {f"pkg{i % 4}/mod{i}.py": f"VALUE = {i}\n" * (i + 1)})
    tmpdir(base, "dst")
    capture("rsync", "archive", "rsync -av src/ dst/", base, r"^sent |^total size",
            "rsync -av of 40 files in 4 folders", False)
    for i in range(0, 40, 3):
        write(base, {f"src/pkg{i % 4}/mod{i}.py": f"CHANGED = {i}\n"})
    for i in range(6):
        write(base, {f"src/pkg{i % 4}/new{i}.py": "NEW = 1\n"})
    for i in (3, 7, 11, 15):
        os.remove(os.path.join(base, f"src/pkg3/mod{i}.py"))
    capture("rsync", "dry-run-delete", "rsync -avn --delete src/ dst/", base,
            r"^deleting |^pkg\d/(?:mod\d+|new\d)\.py$|^sent |DRY RUN",
            "rsync dry run: 14 edits, 6 new files, 4 deletions", False)
    capture("rsync", "dry-run-missing", "rsync -avn nosuchdir/ dst/", base, r"rsync: |rsync error",
            "rsync dry run of a folder that does not exist", True)
    capture("rsync", "stats", "rsync -a --stats src/ dst/", base,
            r"^Number of (?:files|regular files transferred)|^Total transferred file size|^sent ",
            "rsync --stats after the edits", False)
    capture("rsync", "missing-source", "rsync -av nosuchdir/ dst/", base, r"rsync: |rsync error",
            "rsync of a folder that does not exist", True)


# --------------------------------------------------------------------------------------------
PLAYBOOK = """
- name: configure the workstation
  hosts: localhost
  connection: local
  gather_facts: false
  vars:
    root: "{{ playbook_dir }}/out"
  tasks:
    - name: make the output folder
      ansible.builtin.file:
        path: "{{ root }}"
        state: directory
    - name: write config files
      ansible.builtin.copy:
        dest: "{{ root }}/{{ item }}.conf"
        content: "name={{ item }}\\n"
      loop: [api, worker, scheduler, cache, proxy, metrics]
    - name: read a value
      ansible.builtin.command: cat {{ root }}/api.conf
      register: api_conf
      changed_when: false
    - name: show it
      ansible.builtin.debug:
        var: api_conf.stdout
    - name: check the database config
      ansible.builtin.command: test -f {{ root }}/CHECKED.conf
      changed_when: false
"""


def ansible_playbook(base: str) -> None:
    ok = write(tmpdir(base, "ans-ok"), {"site.yml": PLAYBOOK.replace("CHECKED", "api")})
    # where cowsay is installed ansible draws every banner with it: one case keeps that
    ENV.pop("ANSIBLE_NOCOWS", None)
    capture("ansible-playbook", "cowsay", "ansible-playbook site.yml", ok, r"^localhost\s+:",
            "ansible-playbook with cowsay installed (banners drawn by cows)", False)
    sh("rm -rf out", ok)
    ENV["ANSIBLE_NOCOWS"] = "1"
    capture("ansible-playbook", "changed", "ansible-playbook site.yml", ok, r"^localhost\s+:",
            "ansible-playbook on localhost, all tasks pass, files written", False)
    capture("ansible-playbook", "idempotent", "ansible-playbook site.yml", ok, r"localhost\s+:",
            "the same playbook run again (nothing changes)", False)
    bad = write(tmpdir(base, "ans-bad"), {"site.yml": PLAYBOOK.replace("CHECKED", "database")})
    capture("ansible-playbook", "failed", "ansible-playbook site.yml", bad,
            r"^fatal: |localhost\s+:", "ansible-playbook whose last task fails", True)


# --------------------------------------------------------------------------------------------
def precommit(base: str) -> None:
    d = write(tmpdir(base, "pc"), {".pre-commit-config.yaml": """
        repos:
          - repo: local
            hooks:
              - id: no-tabs
                name: no tab characters
                entry: "\\t"
                language: pygrep
                types: [python]
              - id: no-print
                name: no print calls
                entry: '\\bprint\\('
                language: pygrep
                types: [python]
              - id: no-todo
                name: no TODO in code
                entry: 'TODO'
                language: pygrep
                types: [python]
              - id: compiles
                name: python compiles
                entry: python3 -m py_compile
                language: system
                types: [python]
              - id: shell-scripts
                name: shell scripts are executable
                entry: "true"
                language: system
                types: [shell]
              - id: json-files
                name: json files parse
                entry: python3 -m json.tool
                language: system
                types: [json]
              - id: no-breakpoint
                name: no breakpoint calls
                entry: 'breakpoint\\('
                language: pygrep
                types: [python]
              - id: no-pdb
                name: no pdb imports
                entry: 'import pdb'
                language: pygrep
                types: [python]
              - id: no-fixme
                name: no FIXME markers
                entry: 'FIXME'
                language: pygrep
                types: [python]
              - id: no-crlf
                name: no CRLF line endings
                entry: '\r$'
                language: pygrep
              - id: yaml-files
                name: yaml files are text
                entry: "true"
                language: system
                types: [yaml]
        """, **{f"app/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(8)}})
    sh("git init -q . && git add . && git -c user.name=t -c user.email=t@e commit -qm init", d)
    capture("pre-commit", "all-pass", "pre-commit run --all-files", d, r"(?!)",
            "pre-commit with local hooks, all pass", False)
    for i in range(8, 30):
        write(d, {f"app/m{i}.py": f"def f{i}(x):\n    print('value', x)\n    return x + {i}\n"})
    write(d, {"app/m2.py": "def f2():\n    print('debug')  # TODO fix\n    return 2\n",
              "app/m5.py": "def f5():\n\treturn 5\n", "app/m6.py": "def f6(:\n    return 6\n",
              "data.json": "{\"a\": 1,}\n"})
    sh("git add .", d)
    capture("pre-commit", "failures", "pre-commit run --all-files", d,
            r"Failed$|- hook id|app/m\d\.py:\d+|data\.json|Expecting|SyntaxError",
            "pre-commit with four failing hooks (print calls in 23 files)", True)


# --------------------------------------------------------------------------------------------
def ansible_lint(base: str) -> None:
    lint = write(tmpdir(base, "ans-lint"), {"playbook.yml": '''
        - hosts: all
          tasks:
            - shell: echo hello
            - name: install
              apt: name=nginx state=latest
            - name: copy file
              copy: src=a dest=/tmp/a mode=644
            - command: "rm -rf /tmp/x"
        ''', ".ansible-lint": "offline: true\n"})
    sh("git init -q .", lint)
    capture("ansible-lint", "fail", "ansible-lint playbook.yml", lint,
            r"playbook\.yml:\d+|^Failed|failure\(s\)|violation", "ansible-lint on a playbook with issues",
            True)


# --------------------------------------------------------------------------------------------
def poetry(base: str) -> None:
    d = write(tmpdir(base, "po"), {"pyproject.toml": '''
        [tool.poetry]
        name = "calc"
        version = "0.3.0"
        description = "A calculator"
        authors = ["Dev <dev@example.com>"]
        readme = "README.md"
        packages = [{include = "calc"}]

        [tool.poetry.dependencies]
        python = ">=3.9"

        [build-system]
        requires = ["poetry-core"]
        build-backend = "poetry.core.masonry.api"
        ''', "README.md": "# calc\n", "calc/__init__.py": "def add(a, b):\n    return a + b\n"})
    capture("poetry", "build", "poetry build", d, r"Built calc", "poetry build of a small package", False)
    capture("poetry", "check", "poetry check", d, r"All set|Warning|Error",
            "poetry check on a valid project (warnings about the legacy table)", None)
    bad = write(tmpdir(base, "po-bad"), {"pyproject.toml": '''
        [tool.poetry]
        name = "calc"
        descripton = "typo"
        authors = "Dev"
        [tool.poetry.dependencies]
        python = "^3.9"
        requests = {verion = "2"}
        '''})
    capture("poetry", "check-fail", "poetry check", bad, r"Error|error|must|required|Warning",
            "poetry check on an invalid pyproject", True)


# --------------------------------------------------------------------------------------------
def ruby(base: str) -> None:
    d = write(tmpdir(base, "rb"), {
        "lib/calc.rb": '''
            class Calc
              def add(a, b)
                a + b
              end

              def div(a, b)
                a / b
              end
            end
            ''',
        "spec/calc_spec.rb": '''
            require_relative "../lib/calc"

            RSpec.describe Calc do
              subject(:calc) { described_class.new }

              (1..30).each do |n|
                it "adds #{n} and 1" do
                  expect(calc.add(n, 1)).to eq(n + 1)
                end
              end

              it "adds two and two" do
                expect(calc.add(2, 2)).to eq(5)
              end

              it "divides by zero" do
                expect(calc.div(1, 0)).to eq(0)
              end

              it "is pending", pending: "not written" do
                expect(1).to eq(2)
              end
            end
            ''',
        "Rakefile": '''
            task default: :check

            desc "Check the calculator"
            task :check do
              require_relative "lib/calc"
              puts "checking add"
              raise ArgumentError, "Calc#add(2, 2) returned #{Calc.new.add(2, 2)}, want 5" unless Calc.new.add(2, 2) == 5
            end

            desc "Build it"
            task :build do
              puts "building"
            end
            ''',
    })
    capture("rspec", "fail", "rspec", d,
            r"^rspec \./spec|examples?, \d+ failures?|expected: |got: |ZeroDivisionError|Failure/Error|spec/calc_spec\.rb:\d+",
            "rspec with 30 passing examples, a failing expectation and an exception", True)
    ok = write(tmpdir(base, "rb-ok"), {"lib/calc.rb": "class Calc\n  def add(a, b) = a + b\nend\n",
                                       "spec/calc_spec.rb": '''
            require_relative "../lib/calc"
            RSpec.describe Calc do
              (1..40).each do |n|
                it("adds #{n}") { expect(Calc.new.add(n, 1)).to eq(n + 1) }
              end
            end
            '''})
    capture("rspec", "pass-doc", "rspec --format documentation", ok, r"examples?, 0 failures",
            "rspec -f d with 40 passing examples", False)
    write(d, {"Rakefile": "".join(f'task :step{i}{" => :step" + str(i - 1) if i else ""} do\n  puts "step {i}"\nend\n' for i in range(15)) +
              'desc "Build it"\ntask build: :step14 do\n  puts "built"\nend\n\n' + open(os.path.join(d, "Rakefile")).read()})
    capture("rake", "build-trace", "rake build --trace", d, r"^built$", "rake --trace of a 16-task chain that passes", False)
    capture("rake", "task-fail", "rake check", d, r"rake aborted|ArgumentError|Rakefile:\d+",
            "rake task raising an error", True)
    capture("rake", "task-trace", "rake check --trace", d, r"rake aborted|ArgumentError|Rakefile:\d+|Invoke",
            "rake --trace of a failing task", True)
    lint = write(tmpdir(base, "rb-lint"), {
        "lib/a.rb": "class A\n  def initialize(x)\n    @x=x\n  end\n  def run()\n    if @x == nil then return \"none\" end\n    puts \"value: \" + @x.to_s\n  end\nend\n",
        "lib/b.rb": "# frozen_string_literal: true\n\n# B does things\nclass B\n  def ok\n    1\n  end\nend\n",
        "lib/c.rb": "def c\n  x = 1\n  y = [1,2,3].map { |i| i*2 }\n  return y\nend\n"})
    capture("rubocop", "offenses", "rubocop", lint, r"^lib/\w\.rb:\d+:\d+: |offenses? detected|inspected",
            "rubocop on three files with style offenses", True)
    clean = write(tmpdir(base, "rb-clean"), {
        "lib/b.rb": "# frozen_string_literal: true\n\n# B does things\nclass B\n  def ok\n    1\n  end\nend\n"})
    capture("rubocop", "clean", "rubocop", clean, r"no offenses|inspected", "rubocop on a clean file", False)
    # rubygems.org is out of reach here: bundle resolves against the gems Debian installed
    # (rubocop, rspec, rake and their dependencies); gem installs a gem built here
    gem = write(tmpdir(base, "rb-gem"), {"Gemfile": 'source "https://rubygems.org"\ngem "rake"\ngem "rspec"\ngem "rubocop"\n'})
    capture("bundle", "install", "bundle install --local", gem, r"Bundle complete",
            "bundle install --local of rake, rspec and rubocop (from installed gems)", False)
    bad = write(tmpdir(base, "rb-gem-bad"), {"Gemfile": 'source "https://rubygems.org"\ngem "rake"\ngem "thresher-no-such-gem-xyz"\n'})
    capture("bundle", "install-missing", "bundle install --local", bad, r"Could not find|thresher-no-such",
            "bundle install --local of a gem that does not exist", True)
    g = write(tmpdir(base, "rb-gemspec"), {"calc.gemspec": '''
        Gem::Specification.new do |s|
          s.name = "calc"
          s.version = "0.1.0"
          s.summary = "A calculator"
          s.authors = ["Dev"]
          s.files = ["lib/calc.rb"]
        end
        ''', "lib/calc.rb": "class Calc\n  def add(a, b) = a + b\nend\n"})
    for name in ("calc_extra", "calc_cli"):
        write(g, {f"{name}.gemspec": open(os.path.join(g, "calc.gemspec")).read().replace('"calc"', f'"{name}"')})
        sh(f"gem build {name}.gemspec", g)
    capture("gem", "build", "gem build calc.gemspec", g, r"Successfully built|WARNING|File: ",
            "gem build of a gemspec missing license and homepage", False)
    capture("gem", "install", "gem install --local --install-dir gems calc-0.1.0.gem calc_extra-0.1.0.gem calc_cli-0.1.0.gem", g,
            r"Successfully installed|gems? installed", "gem install of three gems built here", False)
    capture("gem", "install-missing", "gem install --local --install-dir gems thresher-no-such-gem-xyz", g,
            r"ERROR|Could not find", "gem install --local of a gem that does not exist", True)


# --------------------------------------------------------------------------------------------
JS_SRC = '''
function add(a, b) { return a + b; }
function div(a, b) { if (b === 0) throw new Error("division by zero"); return a / b; }
module.exports = { add, div };
'''


def js(base: str, nodemods: str) -> None:
    files = {"src/calc.js": JS_SRC}
    for i in range(12):
        files[f"test/ok{i}.test.js"] = textwrap.dedent(f'''
            const {{ add }} = require("../src/calc");
            describe("add suite {i}", () => {{
              for (let n = 0; n < 5; n++) test(`adds ${{n}} and {i}`, () => expect(add(n, {i})).toBe(n + {i}));
            }});
            ''')
    files["test/bad.test.js"] = '''
        const { add, div } = require("../src/calc");
        describe("broken", () => {
          test("adds two and two", () => {
            expect(add(2, 2)).toBe(5);
          });
          test("divides by zero", () => {
            expect(div(1, 0)).toBe(Infinity);
          });
          test("fine", () => expect(add(1, 1)).toBe(2));
        });
        '''
    d = write(tmpdir(base, "jest"), {**files, "package.json": '{"name": "calc", "private": true}\n'})
    os.symlink(nodemods, os.path.join(d, "node_modules"))
    capture("jest", "fail", "npx jest", d,
            r"^FAIL |●.*›|Expected: |Received: |division by zero|^Tests: |^Test Suites: |calc\.js:\d+|bad\.test\.js:\d+",
            "jest with 12 passing suites and one failing suite", True)
    os.remove(os.path.join(d, "test/bad.test.js"))
    capture("jest", "pass", "npx jest", d, r"^Tests: |^Test Suites: ", "jest with 12 passing suites", False)
    # --coverage over 25 modules: most fully covered, a few with uncovered lines and branches
    for i in range(25):
        write(d, {f"src/lib/m{i}.js": f"function f{i}(x) {{\n  if (x > {i}) {{\n    return x - {i};\n  }}\n"
                                      f"  return x + {i};\n}}\nmodule.exports = {{ f{i} }};\n",
                  f"test/lib{i}.test.js": f"const {{ f{i} }} = require('../src/lib/m{i}');\n"
                                          f"test('f{i} above', () => expect(f{i}({i} + 1)).toBe(1));\n" +
                                          (f"test('f{i} below', () => expect(f{i}(0)).toBe({i}));\n" if i % 6 else "")})
    capture("jest", "coverage", "npx jest --coverage", d,
            r"^Tests: |^All files|^\s*m(?:0|6|12|18|24)\.js\s*\|", "jest --coverage over 26 modules, 5 partly covered",
            False)
    # vitest: the same tests as ESM
    vfiles = {"src/calc.js": JS_SRC.replace("module.exports = { add, div };", "export { add, div };")}
    for name, text in files.items():
        if name.startswith("test/"):
            vfiles[name] = ('import { describe, test, expect } from "vitest";\n' +
                            text.replace('const { add } = require("../src/calc");', 'import { add } from "../src/calc.js";')
                            .replace('const { add, div } = require("../src/calc");', 'import { add, div } from "../src/calc.js";'))
    d = write(tmpdir(base, "vitest"), {**vfiles, "package.json": '{"name": "calc", "private": true, "type": "module"}\n'})
    os.symlink(nodemods, os.path.join(d, "node_modules"))
    capture("vitest", "fail", "npx vitest run", d,
            r"FAIL |AssertionError|division by zero|Tests  |Test Files  |bad\.test\.js:\d+|calc\.js:\d+|expected",
            "vitest run with one failing file", True)
    os.remove(os.path.join(d, "test/bad.test.js"))
    capture("vitest", "pass", "npx vitest run", d, r"Tests  |Test Files  ", "vitest run, all pass", False)
    capture("vitest", "pass-verbose", "npx vitest run --reporter=verbose", d, r"Tests  |Test Files  |> adds 4 and 11",
            "vitest run with the verbose reporter (one row per test, asked for)", False)
    # mocha
    mfiles = {"src/calc.js": JS_SRC}
    for i in range(10):
        mfiles[f"test/ok{i}.spec.js"] = textwrap.dedent(f'''
            const assert = require("assert");
            const {{ add }} = require("../src/calc");
            describe("add suite {i}", () => {{
              for (let n = 0; n < 4; n++) it(`adds ${{n}} and {i}`, () => assert.strictEqual(add(n, {i}), n + {i}));
            }});
            ''')
    mfiles["test/bad.spec.js"] = '''
        const assert = require("assert");
        const { add, div } = require("../src/calc");
        describe("broken", () => {
          it("adds two and two", () => assert.strictEqual(add(2, 2), 5));
          it("divides by zero", () => assert.strictEqual(div(1, 0), Infinity));
        });
        '''
    d = write(tmpdir(base, "mocha"), {**mfiles, "package.json": '{"name": "calc", "private": true}\n'})
    os.symlink(nodemods, os.path.join(d, "node_modules"))
    capture("mocha", "fail", "npx mocha 'test/*.spec.js'", d,
            r"passing|failing|^\s+\d+\) |AssertionError|division by zero|bad\.spec\.js:\d+|calc\.js:\d+|^\s+[+-] ",
            "mocha with 40 passing tests and 2 failures", True)
    os.remove(os.path.join(d, "test/bad.spec.js"))
    capture("mocha", "pass", "npx mocha 'test/*.spec.js'", d, r"passing", "mocha, all pass", False)
    # prettier
    pfiles = {f"src/m{i}.js": f"export function f{i}(a, b) {{\n  return a + b + {i};\n}}\n" for i in range(30)}
    pfiles["src/ugly1.js"] = "export function   g(a,b){return a+b}\n"
    pfiles["src/ugly2.js"] = "const x = {a:1,b:2}\nexport default x\n"
    pfiles["src/broken.js"] = "export function (\n"
    d = write(tmpdir(base, "prettier"), {**pfiles, "package.json": '{"name": "calc", "private": true}\n'})
    os.symlink(nodemods, os.path.join(d, "node_modules"))
    capture("prettier", "check-fail", "npx prettier --check src", d,
            r"\[warn\] src|\[error\]|SyntaxError|Code style issues|broken\.js", "prettier --check with 2 unformatted files and a syntax error", True)
    capture("prettier", "write", "npx prettier --write src/m*.js src/ugly*.js", d,
            r"ugly\d\.js", "prettier --write over 32 files (2 change)", False)
    capture("prettier", "check-pass", "npx prettier --check 'src/m*.js' 'src/ugly*.js'", d,
            r"All matched files", "prettier --check after --write", False)
    # webpack
    wfiles = {"src/index.js": "import { add } from './calc.js';\nimport { label } from './label.js';\nconsole.log(label(add(1, 2)));\n",
              "src/calc.js": "export const add = (a, b) => a + b;\n",
              "src/label.js": "export const label = (v) => `value: ${v}`;\n",
              "package.json": '{"name": "calc", "private": true}\n'}
    for i in range(15):
        wfiles[f"src/parts/p{i}.js"] = f"export const p{i} = {i};\n"
        wfiles["src/index.js"] += f"import {{ p{i} }} from './parts/p{i}.js';\nconsole.log(p{i});\n"
    d = write(tmpdir(base, "webpack"), wfiles)
    os.symlink(nodemods, os.path.join(d, "node_modules"))
    capture("webpack", "build", "npx webpack --mode production", d, r"compiled successfully|main\.js",
            "webpack production build of 18 modules", False)
    capture("webpack", "build-dev", "npx webpack --mode development", d, r"compiled successfully|main\.js",
            "webpack development build of 18 modules", False)
    write(d, {"src/label.js": "import { missing } from './nope.js';\nexport const label = (v) => `value: ${v}` +;\n"})
    capture("webpack", "build-fail", "npx webpack --mode production", d,
            r"ERROR in|Module not found|SyntaxError|Can't resolve|compiled with \d+ error|label\.js",
            "webpack build with a syntax error and a missing module", True)


# --------------------------------------------------------------------------------------------
def python_tools(base: str) -> None:
    files = {f"pkg/mod{i}.py": f'"""Module {i}."""\n\n\ndef f{i}(a, b):\n    return a + b + {i}\n' for i in range(70)}
    files["pkg/ugly.py"] = "import os,sys\ndef g( a,b ):\n  return {'a':a,'b':b}\nx = [1,2,\n3]\n"
    files["pkg/imports.py"] = "import sys\nimport os\nfrom collections import OrderedDict, defaultdict\nimport abc\n\nprint(os, sys, abc, OrderedDict, defaultdict)\n"
    files["pkg/risky.py"] = textwrap.dedent('''
        import pickle
        import subprocess
        import hashlib

        PASSWORD = "hunter2"


        def load(blob):
            return pickle.loads(blob)


        def run(cmd):
            return subprocess.call(cmd, shell=True)


        def digest(data):
            assert data, "no data"
            return hashlib.md5(data).hexdigest()


        def query(cur, name):
            cur.execute("SELECT * FROM users WHERE name = '%s'" % name)
        ''')
    d = write(tmpdir(base, "py"), files)
    capture("black", "check-fail", "black --check .", d, r"would reformat|would be reformatted|Oh no",
            "black --check with two files to reformat among 28", True)
    capture("black", "check-verbose", "black --check -v pkg", d, r"would reformat|would be reformatted",
            "black --check -v", True)
    capture("bandit", "issues", "bandit -r pkg", d,
            r">> Issue: |Location: |Total issues \(by severity\)|High: [1-9]|Medium: [1-9]|Low: [1-9]|Files skipped",
            "bandit on a package with six issues", True)
    capture("black", "write", "black .", d, r"reformatted|left unchanged", "black rewriting two files", False)
    capture("black", "check-pass", "black --check .", d, r"would be left unchanged", "black --check after black", False)
    capture("bandit", "clean", "bandit -r pkg -x pkg/risky.py", d, r"No issues identified|Total lines of code",
            "bandit on a clean package", False)
    # coverage report
    cov = write(tmpdir(base, "cov"), {**{f"app/m{i}.py": f"def f(x):\n    if x > {i}:\n        return x\n    return -x\n" for i in range(20)},
                                      "app/__init__.py": "",
                                      "run.py": "import importlib\nfor i in range(20):\n    m = importlib.import_module(f'app.m{i}')\n    m.f(10)\n    if i % 3 == 0:\n        m.f(-1)\n"})
    sh("coverage run run.py", cov)
    capture("coverage", "report", "coverage report -m", cov, r"^TOTAL|^app/m1\.py|^app/m2\.py",
            "coverage report -m over 21 modules", False)
    capture("coverage", "report-fail-under", "coverage report --fail-under=95", cov, r"^TOTAL|fail-under|FAIL",
            "coverage report under the required total", True)
    # sphinx
    docs = {"conf.py": "project = 'calc'\nextensions = []\n", "index.rst": "Calc\n====\n\n.. toctree::\n\n" +
            "".join(f"   page{i}\n" for i in range(20)) + "   missing_page\n"}
    for i in range(20):
        docs[f"page{i}.rst"] = f"Page {i}\n=======\n\nText of page {i}. See :ref:`label{i}`.\n\n.. _label{i}:\n\nSection\n-------\n\nMore.\n"
    docs["page7.rst"] += "\n.. code-block:: nosuchlexer\n\n   x\n\n:doc:`nowhere`\n"
    d = write(tmpdir(base, "sphinx"), docs)
    capture("sphinx", "build-warn", "sphinx-build -b html . _build/html", d,
            r"WARNING|ERROR|build succeeded|warnings?\.", "sphinx-build of 21 pages with warnings", False)
    for i in range(20):
        write(d, {f"page{i}.rst": f"Page {i}\n=======\n\nText {i}.\n"})
    write(d, {"index.rst": "Calc\n====\n\n.. toctree::\n\n" + "".join(f"   page{i}\n" for i in range(20))})
    capture("sphinx", "build-clean", "sphinx-build -E -b html . _build/html", d, r"build succeeded",
            "sphinx-build of 21 clean pages", False)
    write(d, {"conf.py": "project = 'calc'\nextensions = ['no_such_extension']\n"})
    capture("sphinx", "build-fail", "sphinx-build -W -b html . _build/html", d,
            r"Extension error|Could not import|no_such_extension", "sphinx-build with a missing extension", True)


# --------------------------------------------------------------------------------------------
def archives(base: str) -> None:
    d = tmpdir(base, "arc")
    for i in range(60):
        write(d, {f"project/src/pkg{i % 5}/file{i}.txt": f"line {i}\n" * (i * 7 + 1)})
    capture("tar", "create-verbose", "tar -czvf project.tar.gz project", d, r"^project/$",
            "tar -czvf of 60 files", False)
    capture("tar", "extract-verbose", "mkdir -p out && tar -xzvf project.tar.gz -C out", d, r"^project/$",
            "tar -xzvf of the same archive", False)
    capture("tar", "create-missing", "tar -czvf part.tar.gz project/src/pkg1 project/nosuch", d,
            r"tar: |Cannot|Exiting", "tar -czvf naming a missing path", True)
    capture("zip", "create", "zip -r project.zip project", d, r"adding: project/ ",
            "zip -r of 60 files", False)
    capture("zip", "unzip", "unzip -o project.zip -d unz", d, r"^Archive:", "unzip of the same archive", False)
    capture("zip", "unzip-missing", "unzip -o nosuch.zip -d unz", d, r"cannot find|unzip:",
            "unzip of a missing archive", True)
    capture("zip", "create-missing", "zip -r part.zip project/src/pkg1 project/nosuch", d,
            r"zip warning|name not matched", "zip naming a missing path", None)
    capture("zip", "nothing", "zip -r none.zip project/nosuch", d, r"zip warning|zip error",
            "zip of only a missing path", True)


# --------------------------------------------------------------------------------------------
CMAKE = '''
cmake_minimum_required(VERSION 3.10)
project(calc C)
enable_testing()
add_executable(calc main.c)
foreach(i RANGE 1 18)
  add_test(NAME add_${i} COMMAND calc ${i} 1)
endforeach()
add_test(NAME divide_zero COMMAND calc 1 0)
add_test(NAME bad_args COMMAND calc)
'''
MAIN_C = '''
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: calc A B\\n"); return 2; }
    int a = atoi(argv[1]), b = atoi(argv[2]);
    if (b == 0) { fprintf(stderr, "error: division by zero\\n"); return 1; }
    printf("%d %d\\n", a + b, a / b);
    return 0;
}
'''
LEAKY_C = '''
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
static int sum(int *v, int n) { int s = 0; for (int i = 0; i <= n; i++) s += v[i]; return s; }
int main(void) {
    int *v = malloc(10 * sizeof *v);
    for (int i = 0; i < 10; i++) v[i] = i;
    printf("sum=%d\\n", sum(v, 10));
    char *name = malloc(32);
    strcpy(name, "leak");
    int *w = malloc(4 * sizeof *w);
    free(w);
    free(v);
    return 0;
}
'''


def native(base: str) -> None:
    d = write(tmpdir(base, "ct"), {"CMakeLists.txt": CMAKE, "main.c": MAIN_C})
    sh("cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug && cmake --build build", d)
    capture("ctest", "fail", "ctest --test-dir build", d,
            r"tests passed|tests failed|\*\*\*Failed|The following tests FAILED|\d+ - \w+ \(Failed\)",
            "ctest with 18 passing and 2 failing tests", True)
    capture("ctest", "pass", "ctest --test-dir build -R add_", d, r"tests passed", "ctest, the 18 passing tests",
            False)
    capture("ctest", "output-on-failure", "ctest --test-dir build --output-on-failure", d,
            r"tests passed|\*\*\*Failed|division by zero|usage: calc|The following tests FAILED",
            "ctest --output-on-failure", True)
    m = write(tmpdir(base, "meson"), {"meson.build": "project('calc', 'c')\nexe = executable('calc', 'main.c')\n" +
                                      "".join(f"test('add_{i}', exe, args: ['{i}', '1'])\n" for i in range(1, 61)) +
                                      "test('divide_zero', exe, args: ['1', '0'])\n", "main.c": MAIN_C})
    capture("meson", "setup", "meson setup build", m, r"Build targets in project|Found ninja",
            "meson setup of a C project", False)
    capture("meson", "compile", "meson compile -C build", m, r"Linking target calc|ninja: Entering",
            "meson compile", False)
    capture("meson", "test-fail", "meson test -C build", m, r"FAIL|^Ok: |^Fail: |divide_zero|Full log written",
            "meson test with one failing test of 61", True)
    write(m, {"main.c": MAIN_C.replace("return 0;\n}", "return undefined_var;\n}")})
    capture("meson", "compile-fail", "meson compile -C build", m, r"error:|main\.c:\d+|FAILED|build stopped",
            "meson compile with a C error", True)
    v = write(tmpdir(base, "vg"), {"leaky.c": LEAKY_C})
    sh("gcc -g -O0 -o leaky leaky.c", v)
    capture("valgrind", "memcheck", "valgrind --leak-check=full ./leaky", v,
            r"Invalid read|at 0x.*leaky\.c:\d+|definitely lost|ERROR SUMMARY|in use at exit|sum=",
            "valgrind memcheck: an invalid read and a leak", False)
    capture("valgrind", "memcheck-exitcode", "valgrind --leak-check=full --error-exitcode=1 ./leaky", v,
            r"Invalid read|at 0x.*leaky\.c:\d+|definitely lost|ERROR SUMMARY|sum=",
            "valgrind with --error-exitcode=1", True)
    write(v, {"clean.c": "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n"})
    sh("gcc -g -o clean clean.c", v)
    capture("valgrind", "clean", "valgrind ./clean", v, r"ERROR SUMMARY|All heap blocks were freed|^ok",
            "valgrind on a clean program", False)
    c = write(tmpdir(base, "cpc"), {**{f"src/f{i}.c": f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(15)},
                                    "src/bad.c": "#include <stdlib.h>\nint g(void) {\n    int a[10];\n    a[10] = 1;\n    char *p = malloc(4);\n    return a[0];\n}\nint h(int *q) {\n    if (q) {}\n    return *q;\n}\n"})
    capture("cppcheck", "errors", "cppcheck --enable=warning src", c,
            r"bad\.c:\d+:\d+: (?:error|warning)|arrayIndexOutOfBounds|memleak|nullPointer",
            "cppcheck over 16 files with errors in one", False)
    capture("cppcheck", "errors-exitcode", "cppcheck --error-exitcode=1 --enable=warning src", c,
            r"bad\.c:\d+:\d+: (?:error|warning)", "cppcheck --error-exitcode=1", True)
    capture("cppcheck", "clean", "cppcheck src/f1.c src/f2.c src/f3.c", c, r"Checking src/f3\.c",
            "cppcheck over three clean files", False)


# --------------------------------------------------------------------------------------------
def shell_and_perl(base: str) -> None:
    d = write(tmpdir(base, "shc"), {
        "deploy.sh": '#!/bin/bash\nfor f in $(ls *.txt); do\n  echo $f\ndone\ncd $1\nrm -rf $DIR/*\nif [ $x == 1 ]; then echo one; fi\nread line\nexport A=`date`\n',
        "ok.sh": '#!/bin/sh\nset -eu\nprintf "%s\\n" "hello"\n'})
    capture("shellcheck", "issues", "shellcheck deploy.sh ok.sh", d, r"^In deploy\.sh line \d+|\^-*\^? SC\d{4}",
            "shellcheck on a script with many issues", True)
    capture("shellcheck", "gcc-format", "shellcheck -f gcc deploy.sh", d, r"deploy\.sh:\d+:\d+:",
            "shellcheck -f gcc on the same script", True)
    p = tmpdir(base, "prove")
    for i in range(12):
        write(p, {f"t/{i:02d}-basic.t": f"use strict;\nuse Test::More tests => 3;\nok(1, 'first {i}');\nis({i} + 1, {i + 1}, 'adds');\nlike('abc{i}', qr/abc/, 'matches');\n"})
    write(p, {"t/99-broken.t": "use strict;\nuse Test::More;\nis(2 + 2, 5, 'two plus two');\nok(1, 'fine');\ndie \"boom at the end\\n\";\n"})
    capture("prove", "fail", "prove t", p,
            r"Failed test|got: |expected: |boom|Result: FAIL|Failed \d+/\d+|^t/99-broken\.t|Wstat|Parse errors|Files=",
            "prove with 12 passing files and a failing one", True)
    os.remove(os.path.join(p, "t/99-broken.t"))
    capture("prove", "pass", "prove -v t", p, r"^All tests successful|^Result: PASS|^Files=", "prove -v, all pass", False)


# --------------------------------------------------------------------------------------------
def php(base: str) -> None:
    files = {"src/Calc.php": "<?php\nclass Calc {\n    public function add(int $a, int $b): int { return $a + $b; }\n"
                             "    public function div(int $a, int $b): int { return intdiv($a, $b); }\n}\n"}
    for i in range(12):
        files[f"tests/Add{i}Test.php"] = (
            "<?php\nuse PHPUnit\\Framework\\TestCase;\nrequire_once __DIR__ . '/../src/Calc.php';\n"
            f"class Add{i}Test extends TestCase {{\n" +
            "".join(f"    public function testAdds{n}(): void {{ $this->assertSame({n + i}, (new Calc())->add({n}, {i})); }}\n"
                    for n in range(5)) + "}\n")
    ok = write(tmpdir(base, "php-ok"), files)
    capture("phpunit", "pass", "phpunit tests", ok, r"^OK \(\d+ tests", "phpunit with 60 passing tests", False)
    capture("phpunit", "testdox", "phpunit --testdox tests", ok, r"^OK \(\d+ tests", "phpunit --testdox, all pass",
            False)
    files["tests/BrokenTest.php"] = (
        "<?php\nuse PHPUnit\\Framework\\TestCase;\nrequire_once __DIR__ . '/../src/Calc.php';\n"
        "class BrokenTest extends TestCase {\n"
        "    public function testAddsTwoAndTwo(): void { $this->assertSame(5, (new Calc())->add(2, 2), 'two plus two'); }\n"
        "    public function testDividesByZero(): void { $this->assertSame(0, (new Calc())->div(1, 0)); }\n"
        "    public function testIncomplete(): void { $this->markTestIncomplete('not written'); }\n}\n")
    bad = write(tmpdir(base, "php-bad"), files)
    capture("phpunit", "fail", "phpunit tests", bad,
            r"^\d+\) |Failed asserting|DivisionByZeroError|Calc\.php:\d+|BrokenTest\.php:\d+|^Tests: \d+|^FAILURES!|two plus two",
            "phpunit with a failing assertion and an error among 63 tests", True)


# --------------------------------------------------------------------------------------------
def pybuild(base: str) -> None:
    files = {f"src/calcpkg/m{i}.py": f"X = {i}\n" for i in range(16)}
    files["src/calcpkg/__init__.py"] = ""
    files["pyproject.toml"] = ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
                               '[project]\nname = "calcpkg"\nversion = "0.1.0"\n')
    d = write(tmpdir(base, "pb"), files)
    capture("python-build", "sdist-wheel", "python -m build", d,
            r"^Successfully built|^warning: ", "python -m build (setuptools) of a 17-module package", False)
    write(d, {"pyproject.toml": files["pyproject.toml"].replace('"0.1.0"', '"one point two"')})
    capture("python-build", "bad-version", "python -m build --wheel", d,
            r"must be pep440|ERROR|configuration error|ValueError|invalid", "python -m build with an invalid version",
            True)


FAMILIES = {"terraform": terraform, "mvn": mvn, "ant": ant, "rsync": rsync, "ansible-playbook": ansible_playbook,
            "pre-commit": precommit, "ansible-lint": ansible_lint, "poetry": poetry, "ruby": ruby, "js": js, "python": python_tools,
            "archives": archives, "native": native, "shell": shell_and_perl, "php": php,
            "python-build": pybuild}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("families", nargs="*", help=f"families to capture (default all): {', '.join(FAMILIES)}")
    ap.add_argument("--pyvenv", default="/tmp/ftools", help="venv holding the PyPI tools")
    ap.add_argument("--nodemods", default="/tmp/nodetools/node_modules", help="node_modules with the npm tools")
    args = ap.parse_args()
    ENV.update(os.environ, NO_COLOR="1", TERM="dumb", LC_ALL="C.UTF-8", TF_IN_AUTOMATION="",
               PATH=f"{args.pyvenv}/bin:{args.nodemods}/.bin:" + os.environ["PATH"],
               PRE_COMMIT_HOME=tempfile.mkdtemp(prefix="pc-home-"), ANSIBLE_NOCOLOR="1",
               CI="")
    ENV.pop("TF_IN_AUTOMATION")
    ENV.pop("CI")
    for name in args.families or FAMILIES:
        with tempfile.TemporaryDirectory(prefix=f"cap-{name}-") as base:
            if name == "js":
                js(base, os.path.abspath(args.nodemods))
            else:
                FAMILIES[name](base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
