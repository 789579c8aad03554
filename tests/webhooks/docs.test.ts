// docs/webhooks.md stays true: every event is documented with an example that is exactly the
// catalogue's example and valid against its schema, and every verifier code is named.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WEBHOOK_VERIFY_CODES } from "@l402-hub/sdk/webhooks";
import { eventDataSchemas, eventExamples, WEBHOOK_EVENT_TYPES } from "@/lib/events/catalogue.ts";

const doc = readFileSync(path.resolve(import.meta.dirname, "../../docs/webhooks.md"), "utf8");

describe("docs/webhooks.md", () => {
  it.each(WEBHOOK_EVENT_TYPES.map((t) => [t]))("documents %s with the catalogue's example", (type) => {
    const match = new RegExp("### `" + type.replace(".", "\\.") + "`\\n\\n[^\\n]+\\n\\n```json\\n([\\s\\S]*?)\\n```").exec(doc);
    expect(match, `section for ${type}`).not.toBeNull();
    const example = JSON.parse(match![1]);
    expect(example).toEqual(eventExamples[type]);
    expect(eventDataSchemas[type].parse(example)).toEqual(example);
  });

  it("names every verifier failure code and the retry schedule", () => {
    for (const code of WEBHOOK_VERIFY_CODES) expect(doc).toContain(`\`${code}\``);
    expect(doc).toContain("10 s, 1 min and 5 min");
  });
});
