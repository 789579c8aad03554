// Magic-link e-mails: captured for /dev/mailbox in development without SMTP (newest first, per
// address), sent through SMTP when SMTP_URL is set (a real local SMTP server), refused otherwise;
// the mailbox exists only in development without SMTP.
import net from "node:net";
import { describe, expect, it } from "vitest";
import { deliverSignInMail, listDevMail, signInMailContent } from "@/lib/auth/sign-in-mail.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { testConfig } from "@/tests/helpers/context.ts";
import { useApiContext } from "@/tests/api/helpers.ts";

const api = useApiContext();
const log = createLogger("silent");
const dev = { siteUrl: "http://127.0.0.1:3000", smtpUrl: null, emailFrom: "Hub <hub@example.com>", devMailbox: true };

/** A minimal SMTP server (RFC 5321 happy path) that records each message's envelope and data. */
async function startSmtpServer() {
  const messages: { from: string; to: string[]; data: string }[] = [];
  const server = net.createServer((socket) => {
    let buffer = "";
    let inData = false;
    let current = { from: "", to: [] as string[], data: "" };
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let index: number;
      while ((index = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            messages.push(current);
            current = { from: "", to: [], data: "" };
            socket.write("250 queued\r\n");
          } else current.data += `${line.startsWith("..") ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") socket.write("250-test\r\n250 8BITMIME\r\n");
        else if (verb === "MAIL") {
          current.from = line;
          socket.write("250 ok\r\n");
        } else if (verb === "RCPT") {
          current.to.push(line);
          socket.write("250 ok\r\n");
        } else if (verb === "DATA") {
          inData = true;
          socket.write("354 go\r\n");
        } else if (verb === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("sign-in e-mails", () => {
  it("keeps them for the dev mailbox, newest first, filterable by address", async () => {
    const { prisma } = api.test().db;
    await deliverSignInMail({ config: dev, prisma, log, to: "a@example.com", url: "http://127.0.0.1:3000/api/auth/callback/nodemailer?token=one" });
    await deliverSignInMail({ config: dev, prisma, log, to: "b@example.com", url: "http://127.0.0.1:3000/api/auth/callback/nodemailer?token=two" });
    await deliverSignInMail({ config: dev, prisma, log, to: "a@example.com", url: "http://127.0.0.1:3000/api/auth/callback/nodemailer?token=three" });
    const all = await listDevMail({ prisma });
    expect(all.map((m) => m.url.split("token=")[1])).toEqual(["three", "two", "one"]);
    expect(all[0]).toMatchObject({ to: "a@example.com", subject: "Sign in to L402 Hub (127.0.0.1:3000)" });
    expect((await listDevMail({ prisma, to: " A@Example.com " })).map((m) => m.url.split("token=")[1])).toEqual(["three", "one"]);
    expect(await listDevMail({ prisma, limit: 1 })).toHaveLength(1);
  });

  it("refuses to send without SMTP outside development", async () => {
    const { prisma } = api.test().db;
    await expect(
      deliverSignInMail({ config: { ...dev, devMailbox: false }, prisma, log, to: "a@example.com", url: "http://127.0.0.1:3000/x" }),
    ).rejects.toThrow(/SMTP_URL/);
    expect(await prisma.devMail.count()).toBe(0);
  });

  it("sends through SMTP_URL when set and keeps nothing in the mailbox", async () => {
    const smtp = await startSmtpServer();
    try {
      const { prisma } = api.test().db;
      const url = "https://hub.example.com/api/auth/callback/nodemailer?token=abc";
      await deliverSignInMail({
        config: { ...dev, siteUrl: "https://hub.example.com", smtpUrl: `smtp://127.0.0.1:${smtp.port}`, devMailbox: false },
        prisma,
        log,
        to: "c@example.com",
        url,
      });
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0].to[0]).toContain("c@example.com");
      expect(smtp.messages[0].from).toContain("hub@example.com");
      expect(smtp.messages[0].data.replace(/=\r?\n/g, "")).toContain("token=3Dabc");
      expect(await prisma.devMail.count()).toBe(0);
    } finally {
      await smtp.close();
    }
  });

  it("escapes the link in the HTML body", () => {
    const { html, text } = signInMailContent({ url: 'https://x.example/?a="<b>"', host: "x.example" });
    expect(html).not.toContain('"<b>"');
    expect(html).toContain("&#34;&#60;b&#62;&#34;");
    expect(text).toContain('https://x.example/?a="<b>"');
  });
});

describe("the dev mailbox switch", () => {
  it("is on only with development features (loopback, outside production) and without SMTP_URL", () => {
    expect(testConfig({ NODE_ENV: "development" }).devMailbox).toBe(true);
    expect(testConfig({ NODE_ENV: "development", SMTP_URL: "smtp://mail.example.com:587" }).devMailbox).toBe(false);
    expect(testConfig({ NODE_ENV: "development", HOST: "0.0.0.0" }).devMailbox).toBe(false);
    expect(testConfig({ NODE_ENV: "production", SITE_URL: "https://hub.example.com" }).devMailbox).toBe(false);
  });

  it("validates SMTP_URL and allows private origins only with development features by default", () => {
    expect(() => testConfig({ SMTP_URL: "http://mail.example.com" })).toThrow(/SMTP_URL: must be an smtp/);
    expect(testConfig({ NODE_ENV: "development" }).originAllowPrivate).toBe(true);
    expect(testConfig({ NODE_ENV: "production", SITE_URL: "https://hub.example.com" }).originAllowPrivate).toBe(false);
    expect(testConfig({ NODE_ENV: "production", SITE_URL: "https://hub.example.com", ORIGIN_ALLOW_PRIVATE: "true" }).originAllowPrivate).toBe(true);
  });
});
