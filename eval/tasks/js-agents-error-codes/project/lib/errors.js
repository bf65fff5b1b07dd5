/** An error the API reports with its code (mapped to an HTTP status) instead of a 500. */
export class AppError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "AppError";
    this.code = code;
  }
}
