/** Keeps the last `limit` characters written to it: a server's recent stderr, for diagnostics. */
export class TailBuffer {
  private chunks: string[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size - this.chunks[0].length >= this.limit) {
      this.size -= this.chunks[0].length;
      this.chunks.shift();
    }
  }

  text(): string {
    const joined = this.chunks.join('');
    return joined.length > this.limit ? joined.slice(joined.length - this.limit) : joined;
  }
}
