// Root layout: document language, site-wide metadata, skip link, header and footer.
import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { SiteFooter } from "./components/site-footer.tsx";
import { SiteHeader } from "./components/site-header.tsx";
import "./globals.css";

const description =
  "Pay-per-call HTTP APIs over Lightning (L402). No accounts, no API keys: pay a Lightning invoice per request, straight to the provider's wallet.";

// Static on purpose: absolute URLs (canonical, og:url) come from each page's generateMetadata,
// which reads the configured SITE_URL at request time, so the build needs no configuration.
export const metadata: Metadata = {
  title: { default: "L402 Hub · Pay-per-call APIs over Lightning", template: "%s · L402 Hub" },
  description,
  applicationName: "L402 Hub",
  icons: { icon: [{ url: "/favicon.svg", type: "image/svg+xml" }] },
  openGraph: {
    type: "website",
    siteName: "L402 Hub",
    title: "L402 Hub · Pay-per-call APIs over Lightning",
    description,
    locale: "en_US",
  },
  twitter: { card: "summary", title: "L402 Hub", description },
  formatDetection: { telephone: false, email: false, address: false },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col bg-background font-sans text-foreground antialiased">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-foreground px-4 py-2 text-sm font-medium text-background focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
        >
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
          {children}
        </main>
        <SiteFooter />
      </body>
    </html>
  );
}
