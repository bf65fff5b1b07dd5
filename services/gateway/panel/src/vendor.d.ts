/**
 * The libraries the gateway serves as classic scripts (see panel-routes.ts's vendor files): the
 * browser bundles define these globals. Only what the panel calls is declared.
 */
declare class Diff2HtmlUI {
  constructor(
    target: HTMLElement,
    diff: string,
    config: {
      outputFormat: "line-by-line" | "side-by-side";
      drawFileList?: boolean;
      matching?: "lines" | "words" | "none";
      diffStyle?: "word" | "char";
      highlight?: boolean;
      fileListToggle?: boolean;
      fileContentToggle?: boolean;
      stickyFileHeaders?: boolean;
      synchronisedScroll?: boolean;
      smartSelection?: boolean;
      renderNothingWhenEmpty?: boolean;
      colorScheme?: "light" | "dark" | "auto";
    },
  );
  draw(): void;
}

declare class uPlot {
  constructor(options: Record<string, unknown>, data: Array<Array<number | null>>, target: HTMLElement);
  setData(data: Array<Array<number | null>>): void;
  setSize(size: { width: number; height: number }): void;
  destroy(): void;
}
