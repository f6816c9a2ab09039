import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  defaultKinds,
  findKind,
  kindByName,
  kindForDir,
  loadKindsConfig,
  parseKindsConfig,
} from "../../src/card/index.ts";
import { LoreError } from "../../src/errors.ts";

const README_EXAMPLE = `dirs:     { people: personnes, event: evenements }
sections: { people: [qui, relation, recent, impression] }
recent_section: { people: recent }
private_sections: [correspondance]
`;

describe("the default kind table", () => {
  test.each([
    ["people", "people", ["who", "stance", "recent", "impression"], "recent"],
    ["event", "events", ["when", "who", "what", "stance", "followup"], undefined],
    ["place", "places", ["where", "relation", "recent"], "recent"],
    ["thing", "things", ["what", "usage", "recent"], "recent"],
    ["slang", "slang", ["meaning", "origin", "usage"], undefined],
    ["entry", "", [], undefined],
  ])("%s lives in %p", (name, dir, sections, recent) => {
    expect(kindByName(defaultKinds(), name)).toEqual({ name, dir, sections, ...(recent ? { recent } : {}) });
    expect(kindForDir(defaultKinds(), dir)?.name).toBe(name);
  });

  test("correspondence is private by default", () => {
    expect(defaultKinds().privateSections).toEqual(["correspondence"]);
  });

  test.each([
    ["People", "people"],
    ["person", "people"],
    ["events", "event"],
    ["places", "place"],
    ["Things", "thing"],
  ])("the kind %p is found as %p", (name, kind) => {
    expect(findKind(defaultKinds(), name)?.name).toBe(kind);
  });

  test("an unknown kind is an unknown_kind error listing the known ones", () => {
    expect(() => kindByName(defaultKinds(), "monster")).toThrow(/unknown kind "monster".*people/);
  });
});

describe("kinds.yaml", () => {
  test("the README's example renames directories and sections", () => {
    const config = parseKindsConfig(README_EXAMPLE);
    expect(kindByName(config, "people")).toEqual({
      name: "people",
      dir: "personnes",
      sections: ["qui", "relation", "recent", "impression"],
      recent: "recent",
    });
    expect(kindByName(config, "event").dir).toBe("evenements");
    expect(kindByName(config, "place").dir).toBe("places");
    expect(kindForDir(config, "personnes")?.name).toBe("people");
    expect(config.privateSections).toEqual(["correspondance"]);
  });

  test("recent_section can name another section or none", () => {
    const config = parseKindsConfig("recent_section: { event: followup, place: null }");
    expect(kindByName(config, "event").recent).toBe("followup");
    expect(kindByName(config, "place").recent).toBeUndefined();
  });

  test("a new kind can be added with its own directory", () => {
    const config = parseKindsConfig("dirs: { project: projects }\nsections: { project: [goal, status] }");
    expect(kindByName(config, "project")).toEqual({
      name: "project",
      dir: "projects",
      sections: ["goal", "status"],
    });
    expect(config.kinds.at(-1)?.name).toBe("entry");
  });

  test("an empty kinds.yaml gives the defaults", () => {
    expect(parseKindsConfig("")).toEqual(defaultKinds());
  });

  test.each([
    ["invalid YAML", "dirs: [", /kinds\.yaml/],
    ["a list at the top", "- people", /mapping/],
    ["dirs as a list", "dirs: [people]", /dirs must be a mapping/],
    ["a directory escaping the vault", "dirs: { people: ../people }", /dirs\.people/],
    ["a nested directory", "dirs: { people: a/b }", /dirs\.people/],
    ["the archive directory", "dirs: { people: _archive }", /dirs\.people/],
    ["the state directory", "dirs: { people: .lorecards }", /dirs\.people/],
    ["moving entry out of the root", "dirs: { entry: misc }", /vault root/],
    ["two kinds in one directory", "dirs: { people: stuff, thing: stuff }", /share the directory "stuff"/],
    ["sections that are not names", "sections: { people: {a: 1} }", /sections\.people/],
    ["private_sections as a mapping", "private_sections: {a: 1}", /private_sections/],
    [
      "an alias bomb",
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      /alias/i,
    ],
  ])("%s is a clear parse_error", (_name, text, message) => {
    let caught: unknown;
    try {
      parseKindsConfig(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LoreError);
    expect((caught as LoreError).code).toBe("parse_error");
    expect((caught as LoreError).message).toMatch(message);
  });

  test.each([
    [
      "the Python original's generic_keywords",
      "generic_keywords: [the, a]\ndirs: { people: personnes }",
      ["generic_keywords"],
    ],
    ["a typo beside real settings", "dir: {people: p}\nprivate_sections: [notes]", ["dir"]],
    ["two unknown settings", "a: 1\nb: 2", ["a", "b"]],
  ])("an unknown setting (%s) is ignored with a warning, and the rest still applies", (_name, text, keys) => {
    const config = parseKindsConfig(text);
    expect(config.warnings).toEqual(keys.map((k) => `kinds.yaml: unknown setting "${k}" is ignored`));
    const { warnings: _, ...rest } = config;
    const expected = parseKindsConfig(
      text
        .split("\n")
        .filter((l) => !keys.some((k) => l.startsWith(`${k}:`)))
        .join("\n"),
    );
    expect(rest).toEqual(expected);
    expect(expected).not.toHaveProperty("warnings");
  });

  test("a vault whose kinds.yaml has an unknown setting still loads", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
    try {
      fs.writeFileSync(
        path.join(root, "kinds.yaml"),
        "generic_keywords: [the]\ndirs: { people: personnes }\n",
      );
      const config = loadKindsConfig(root);
      expect(kindByName(config, "people").dir).toBe("personnes");
      expect(config.warnings).toHaveLength(1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test("loadKindsConfig reads the vault root's kinds.yaml, or gives the defaults", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "lc-"));
    try {
      expect(loadKindsConfig(root)).toEqual(defaultKinds());
      fs.writeFileSync(path.join(root, "kinds.yaml"), README_EXAMPLE);
      expect(kindByName(loadKindsConfig(root), "people").dir).toBe("personnes");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
