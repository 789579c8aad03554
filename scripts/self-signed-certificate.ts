// A self-signed certificate for a loopback HTTPS server, made with the openssl CLI (P-256, valid two
// days): the soak's webhook receiver, the tests' HTTPS receiver and the browser tests' one. Clients
// trust it through NODE_EXTRA_CA_CERTS (`certFile`) or a `ca` option.
import { execFileSync } from "node:child_process";
import path from "node:path";

/** Writes `cert.pem` and `key.pem` into `dir`, for `commonName` and the subjectAltName entries (`DNS:…`, `IP:…`). */
export function writeSelfSignedCertificate(dir: string, options: { commonName: string; altNames: string[] }): { certFile: string; keyFile: string } {
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "2",
      "-subj",
      `/CN=${options.commonName}`,
      "-addext",
      `subjectAltName=${options.altNames.join(",")}`,
    ],
    { stdio: "ignore" },
  );
  return { certFile, keyFile };
}
