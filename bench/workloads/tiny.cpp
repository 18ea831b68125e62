// tiny.cpp - many tiny C++ functions: a small particle simulation with a
// vector class (constructors, operators, accessors), virtual calls through
// a base class, std::vector element access and std::sort with a lambda.
// Under g++ -finstrument-functions every one of these, inlined or not
// (including the std:: templates), calls the hooks.
//
// Usage: tiny [UNITS]; prints a checksum (calls: from the profiler).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

struct Vec3 {
	double x, y, z;
	Vec3() : x(0), y(0), z(0) {}
	Vec3(double a, double b, double c) : x(a), y(b), z(c) {}
	Vec3 operator+(const Vec3 &o) const { return Vec3(x + o.x, y + o.y, z + o.z); }
	Vec3 operator-(const Vec3 &o) const { return Vec3(x - o.x, y - o.y, z - o.z); }
	Vec3 operator*(double s) const { return Vec3(x * s, y * s, z * s); }
	double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
	double norm2() const { return dot(*this); }
};

struct Particle {
	Vec3 pos, vel;
	double mass;
	const Vec3 &position() const { return pos; }
	const Vec3 &velocity() const { return vel; }
	void kick(const Vec3 &f, double dt) { vel = vel + f * (dt / mass); }
	void drift(double dt) { pos = pos + vel * dt; }
};

struct Field {
	virtual ~Field() {}
	virtual Vec3 force(const Particle &p) const = 0;
};

struct Spring : Field {
	double k;
	explicit Spring(double kk) : k(kk) {}
	Vec3 force(const Particle &p) const override { return p.position() * -k; }
};

struct Drag : Field {
	double c;
	explicit Drag(double cc) : c(cc) {}
	Vec3 force(const Particle &p) const override { return p.velocity() * -c; }
};

struct Gravity : Field {
	Vec3 g;
	explicit Gravity(const Vec3 &gg) : g(gg) {}
	Vec3 force(const Particle &p) const override { return g * p.mass; }
};

class System {
	std::vector<Particle> ps;
	std::vector<std::unique_ptr<Field>> fields;

public:
	explicit System(size_t n)
	{
		unsigned long s = 42;
		for (size_t i = 0; i < n; i++) {
			s = s * 6364136223846793005ul + 1442695040888963407ul;
			double a = double(s >> 40) / double(1ul << 24);
			Particle p;
			p.pos = Vec3(a, 1 - a, a * a);
			p.vel = Vec3(0, a, 0);
			p.mass = 1 + a;
			ps.push_back(p);
		}
		fields.emplace_back(new Spring(0.5));
		fields.emplace_back(new Drag(0.01));
		fields.emplace_back(new Gravity(Vec3(0, 0, -0.1)));
	}
	size_t size() const { return ps.size(); }
	Particle &at(size_t i) { return ps[i]; }
	Vec3 total_force(const Particle &p) const
	{
		Vec3 f;
		for (const auto &fld : fields)
			f = f + fld->force(p);
		return f;
	}
	void step(double dt)
	{
		for (size_t i = 0; i < size(); i++) {
			Particle &p = at(i);
			p.kick(total_force(p), dt);
			p.drift(dt);
		}
	}
	double energy() const
	{
		double e = 0;
		for (const Particle &p : ps)
			e += 0.5 * p.mass * p.velocity().norm2() + p.position().norm2();
		return e;
	}
	void sort_by_height()
	{
		std::sort(ps.begin(), ps.end(),
			  [](const Particle &a, const Particle &b) { return a.position().z < b.position().z; });
	}
};

} // namespace

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? unsigned(atoi(argv[1])) : 100;
	System sys(2000);
	double e = 0;

	for (unsigned u = 0; u < units; u++) {
		for (int k = 0; k < 10; k++)
			sys.step(0.01);
		e += sys.energy();
		if (u % 10 == 0)
			sys.sort_by_height();
	}
	std::printf("tiny: units %u checksum %.6f\n", units, e);
	return 0;
}
