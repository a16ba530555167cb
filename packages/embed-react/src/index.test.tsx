// @vitest-environment jsdom
import { act, cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EmbedError, RelinkEmbed, embedURL } from "./index";

afterEach(cleanup);

const origin = "https://app.relink.test";

function post(source: Window | null, data: unknown, from = origin) {
  act(() => {
    window.dispatchEvent(new MessageEvent("message", { data, origin: from, source }));
  });
}

describe("embedURL", () => {
  it("encodes token, theme and themeOptions and asks for dynamic height", () => {
    const u = new URL(embedURL({ origin: origin + "/", token: "dub_embed_x", theme: "dark", themeOptions: { backgroundColor: "#0f172a" } }));
    expect(u.origin + u.pathname).toBe(origin + "/embed/referrals");
    expect(u.searchParams.get("token")).toBe("dub_embed_x");
    expect(u.searchParams.get("theme")).toBe("dark");
    expect(JSON.parse(u.searchParams.get("themeOptions")!)).toEqual({ backgroundColor: "#0f172a" });
    expect(u.searchParams.get("dynamicHeight")).toBe("true");
  });
  it("leaves out theme and themeOptions when unset", () => {
    const u = new URL(embedURL({ origin, token: "t" }));
    expect(u.searchParams.has("theme")).toBe(false);
    expect(u.searchParams.has("themeOptions")).toBe(false);
  });
});

describe("RelinkEmbed", () => {
  it("renders the iframe with clipboard-write", () => {
    const { container } = render(<RelinkEmbed token="dub_embed_a" origin={origin} theme="system" className="host" />);
    const f = container.querySelector("iframe")!;
    expect(f.getAttribute("allow")).toBe("clipboard-write");
    expect(f.getAttribute("src")).toContain(origin + "/embed/referrals?token=dub_embed_a&theme=system");
    expect(container.firstElementChild!.className).toBe("host");
  });

  it("resizes to PAGE_HEIGHT from its own iframe and origin only", () => {
    const { container } = render(<RelinkEmbed token="t" origin={origin} />);
    const box = container.firstElementChild as HTMLElement;
    const f = container.querySelector("iframe")!;
    expect(box.style.height).toBe("1020px");
    post(f.contentWindow, { originator: "Dub", event: "PAGE_HEIGHT", data: { height: 777 } }, "https://evil.test");
    post(window, { originator: "Dub", event: "PAGE_HEIGHT", data: { height: 666 } });
    expect(box.style.height).toBe("1020px");
    post(f.contentWindow, { originator: "Dub", event: "PAGE_HEIGHT", data: { height: 640 } });
    expect(box.style.height).toBe("640px");
  });

  it("reports ERROR messages as EmbedError with code and message", () => {
    const onError = vi.fn();
    const { container } = render(<RelinkEmbed token="t" origin={origin} onError={onError} />);
    const f = container.querySelector("iframe")!;
    post(f.contentWindow, { originator: "Dub", event: "ERROR", data: { code: "unauthorized", message: "Invalid embed public token." } });
    expect(onError).toHaveBeenCalledTimes(1);
    const err = onError.mock.calls[0][0];
    expect(err).toBeInstanceOf(EmbedError);
    expect(err.code).toBe("unauthorized");
    expect(err.message).toBe("Invalid embed public token.");
  });

  it("renders nothing for analytics or without a token", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(render(<RelinkEmbed token="t" origin={origin} data="analytics" />).container.innerHTML).toBe("");
    expect(render(<RelinkEmbed token="" origin={origin} />).container.innerHTML).toBe("");
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });

  it("reloads the iframe when the token changes", () => {
    const { container, rerender } = render(<RelinkEmbed token="one" origin={origin} />);
    expect(container.querySelector("iframe")!.src).toContain("token=one");
    rerender(<RelinkEmbed token="two" origin={origin} />);
    expect(container.querySelector("iframe")!.src).toContain("token=two");
  });
});
