import { useEffect, useMemo, useRef, useState, type CSSProperties, type HTMLAttributes } from "react";

/** Which dashboard to embed. Only "referrals" exists today; "analytics" renders nothing. */
export type EmbedData = "referrals" | "analytics";
export type EmbedTheme = "light" | "dark" | "system";
export interface EmbedThemeOptions {
  backgroundColor?: string;
}

/** The error the dashboard reports through postMessage ({code, message}). */
export class EmbedError extends Error {
  code: string;
  constructor({ code, message }: { code: string; message: string }) {
    super(message);
    this.name = "EmbedError";
    this.code = code;
  }
}

export interface RelinkEmbedProps extends Omit<HTMLAttributes<HTMLDivElement>, "onError"> {
  /** Public token from POST /tokens/embed/referrals. */
  token: string;
  data?: EmbedData;
  theme?: EmbedTheme;
  themeOptions?: EmbedThemeOptions;
  /** The Relink app origin, e.g. "https://app.example.com". */
  origin: string;
  onError?: (err: EmbedError) => void;
  containerStyles?: CSSProperties;
}

/** embedURL builds the iframe's src (the same contract as @dub/embed-core). */
export function embedURL(o: { origin: string; token: string; theme?: EmbedTheme; themeOptions?: EmbedThemeOptions }): string {
  const q = new URLSearchParams({ token: o.token });
  if (o.theme) q.set("theme", o.theme);
  if (o.themeOptions) q.set("themeOptions", JSON.stringify(o.themeOptions));
  q.set("dynamicHeight", "true");
  return `${o.origin.replace(/\/+$/, "")}/embed/referrals?${q.toString()}`;
}

const defaultContainer: CSSProperties = { position: "relative", maxWidth: 1024, height: 1020, margin: "0 auto" };

/**
 * RelinkEmbed renders Relink's referral dashboard in an iframe with
 * allow="clipboard-write", resizes it to the height the page posts, and
 * reports token errors through onError. Messages are accepted only from the
 * iframe itself and from origin.
 */
export function RelinkEmbed({ token, data = "referrals", theme, themeOptions, origin, onError, containerStyles, ...div }: RelinkEmbedProps) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState<number | null>(null);
  const optionsKey = JSON.stringify(themeOptions ?? null);
  const src = useMemo(
    () => (token ? embedURL({ origin, token, theme, themeOptions }) : ""),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [origin, token, theme, optionsKey],
  );
  const expectedOrigin = useMemo(() => {
    try {
      return new URL(origin).origin;
    } catch {
      return "";
    }
  }, [origin]);
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;

  useEffect(() => {
    function onMessage(ev: MessageEvent) {
      if (!frame.current || ev.source !== frame.current.contentWindow) return;
      if (expectedOrigin && ev.origin !== expectedOrigin) return;
      const m = ev.data as { event?: string; data?: { height?: number; code?: string; message?: string } } | null;
      if (!m || typeof m !== "object") return;
      if (m.event === "PAGE_HEIGHT" && typeof m.data?.height === "number") {
        setHeight(m.data.height);
      } else if (m.event === "ERROR") {
        onErrorRef.current?.(new EmbedError({ code: m.data?.code ?? "", message: m.data?.message ?? "" }));
      }
    }
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [expectedOrigin]);

  if (data !== "referrals") {
    console.error(`[Relink] unsupported data: ${String(data)}`);
    return null;
  }
  if (!token) {
    console.error("[Relink] a token is required");
    return null;
  }
  const style: CSSProperties = { ...defaultContainer, ...containerStyles, ...(height !== null ? { height } : {}) };
  return (
    <div {...div} style={{ ...style, ...div.style }} data-relink-embed="">
      <iframe
        ref={frame}
        key={src}
        src={src}
        title="Referral dashboard"
        allow="clipboard-write"
        style={{ width: "100%", height: "100%", border: "none" }}
      />
    </div>
  );
}

export default RelinkEmbed;
