/** What the console server tells the UI (`GET /console/settings`). */
export interface ConsoleSettings {
  /** Jaeger's UI; set whenever OTLP export is configured (or named explicitly). */
  jaeger_url: string | null;
}
