export default function Home() {
  return (
    <main>
      <h1>File sharing</h1>
    </main>
  );
}
