"""Text material for the sample crawl: phrase banks and a tiny template engine.

Articles are composed from per-topic sentence templates. A template mixes fixed
wording, alternatives ``[a|b|c]`` (one is picked) and slots ``{name}``:

* ``{int:a-b}`` / ``{dec:a-b}`` / ``{pct}``: fresh random numbers on every use;
* ``{date}``, ``{month}``, ``{month_name}``, ``{year}``: the article's date;
* ``{quote}``: a quote from the topic bank, never repeated inside one article;
* any other name (``{city}``, ``{org}``, ``{person2}`` …): drawn once per article
  from the topic vocabulary (falling back to the language-wide one) and then
  reused, so an article keeps talking about the same city, company and people.
  A trailing digit (``{city2}``) means "another one of the same kind".

Two articles of one topic therefore share templates but not their fillings or
their mix of alternatives, which keeps different articles genuinely different
in wording (their character cosine stays well below the 0.9 duplicate bar; the
generator checks that for every pair that could be confused).

The bank text below is written one template per line; a line starting with
``+`` continues the previous one (keeps source lines short for the linter).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

__all__ = [
    "EN_TOPICS",
    "LANGS",
    "ZH_TOPICS",
    "Article",
    "Filler",
    "Topic",
    "compose_article",
    "compose_notice",
    "compose_short_text",
    "compose_title",
    "notice_subjects",
    "topics_for",
]

LANGS = ("zh", "en")


def _lines(block: str, sep: str = "") -> tuple[str, ...]:
    """Split a bank block into templates: one per line, ``+`` lines continue.

    ``sep`` glues a continuation to its line: nothing for Chinese, a space for English.
    """
    out: list[str] = []
    for raw in block.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("+"):
            out[-1] += sep + line[1:].strip()
        else:
            out.append(line)
    return tuple(out)


def _words(block: str) -> tuple[str, ...]:
    """Split a vocabulary block: on ``|`` and newlines if it has a ``|``, else on whitespace."""
    parts = re.split(r"[|\n]", block) if "|" in block else block.split()
    return tuple(w.strip() for w in parts if w.strip())


def _en_lines(block: str) -> tuple[str, ...]:
    return _lines(block, " ")


@dataclass(frozen=True)
class Topic:
    """One subject area: title, lead, body, quote and ending templates plus vocabulary."""

    name: str
    lang: str
    titles: tuple[str, ...]
    leads: tuple[str, ...]
    body: tuple[str, ...]
    quotes: tuple[str, ...]
    endings: tuple[str, ...] = ()
    vocab: dict[str, tuple[str, ...]] = field(default_factory=dict)


# --------------------------------------------------------------------------- zh vocab

_ZH_SURNAMES = _words(
    """王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 林 罗 高 郑 梁 谢 宋 唐 韩 冯 邓 曹
    彭 曾 萧 田 董 潘 袁 蒋 蔡 余 杜 叶 程 魏 苏 吕 丁 任 沈 姚 卢 姜 崔 钟 谭 陆 汪 范 金 石
    廖 贾 夏 韦 方 白 邹 孟 熊 秦 邱 江 尹 薛 阎 段 雷 侯 龙 史 陶 黎 贺 顾 毛 郝 龚 邵 万 钱
    严 覃 武 戴 莫 孔 向 汤"""
)
_ZH_GIVEN = _words(
    """伟 芳 娜 敏 静 丽 强 磊 军 洋 勇 艳 杰 娟 涛 明 超 秀兰 霞 平 刚 桂英 建华 文博 子涵
    欣怡 浩然 宇轩 思远 晓东 海燕 国庆 志强 玉兰 春燕 立新 晨曦 雨桐 梓萱 俊杰 振华 红梅
    建国 秀英 家豪 一鸣 婉清 嘉怡 雅琴 德明 永强 慧敏 金凤 学军 晓红 铁军 逸飞 若曦"""
)
_ZH_CITIES = _words(
    """杭州 成都 武汉 南京 西安 长沙 重庆 苏州 宁波 青岛 厦门 合肥 郑州 济南 昆明 贵阳 南昌
    福州 沈阳 大连 哈尔滨 长春 石家庄 太原 南宁 兰州 无锡 佛山 东莞 温州 绍兴 扬州 徐州 洛阳
    桂林 泉州 烟台 珠海 宜昌 襄阳 芜湖 赣州 柳州 绵阳"""
)
_ZH_COMMON: dict[str, tuple[str, ...]] = {
    "city": _ZH_CITIES,
    "district": _words("东城区 西湖区 高新区 经开区 滨江新区 老城区 南岸区 北湖区 临港新区 江北区"),
    "road": _words(
        "人民路 解放大道 中山路 建设路 和平街 滨河路 长江路 文化路 迎宾大道 学府路 光明街"
    ),
    "community": _words("阳光社区 幸福里小区 锦绣花园 和平新村 梧桐苑 春晖小区 金桂园 翠湖社区"),
    "reporter": _words("本报记者 见习记者 特约记者 通讯员"),
    "role": _words("相关负责人 业内人士 项目负责人"),
}

# --------------------------------------------------------------------------- zh topics

_ZH_TECH = Topic(
    name="tech",
    lang="zh",
    vocab={
        "org": tuple(
            a + b
            for a in _words("华芯 云启 星河 智联 蓝鲸 极光 天衡 迅捷 鸿图 深瞳 数擎 灵犀 凌云 青禾")
            for b in _words("科技 智能 信息技术 网络 半导体")
        ),
        "product": _words(
            """智能手机 折叠屏手机 AI大模型 自动驾驶系统 云计算平台 服务器芯片 智能手表 工业机器人
            操作系统 固态电池 卫星通信模组 AR眼镜 开源数据库 扫地机器人 智能座舱"""
        ),
        "role": _words("首席执行官 首席技术官 研发副总裁 产品负责人 联合创始人 总工程师"),
        "field": _words(
            "人工智能 芯片设计 云计算 物联网 网络安全 量子计算 智能制造 数字孪生 低空经济"
        ),
    },
    titles=_lines(
        """
        {org}发布新一代{product}，[性能|能效|续航]较上代提升{pct}
        {city}[落地|启动]首个{field}创新中心，[首批|已有]{int:10-80}家企业入驻
        {org}{role}{person}：{field}[将迎来关键拐点|正在重塑行业格局|仍需跨越成本门槛]
        [业内首款|国内首个]{product}[亮相|发布]，{org}[押注|加码]{field}
        {field}[人才缺口|投资热潮|应用落地]调查：{city}的[企业|开发者]怎么看
        {org}前三季度研发投入{dec:2-90}亿元，{product}出货量同比增长{pct}
        一文看懂{product}：[技术路线|核心参数|价格变化]与[竞争格局|使用体验|选购建议]
        {city}出台{field}产业扶持政策，单个项目最高补贴{int:100-3000}万元
        [实测|上手体验]{org}{product}：[亮点不少，短板也很明显|这次升级值不值|真的能替代老产品吗]
        """
    ),
    leads=_lines(
        """
        {date}，{org}在{city}举行发布会，正式推出新一代{product}。
        记者{date}从{city}市科技局获悉，当地首个{field}创新中心已正式投入运营。
        {field}正在从概念走向落地，{city}不少企业已经尝到了甜头。
        最近一段时间，{product}成了科技圈讨论最多的话题之一，{org}的新品更是备受关注。
        """
    ),
    body=_lines(
        """
        据介绍，该产品采用自研架构，[关键指标|核心性能]较上一代提升{pct}，[功耗|成本]下降{pct}。
        {org}[方面|相关负责人]透露，新品将于[下月|年底前|明年一季度]在[国内|全球]市场陆续上市。
        业内人士指出，{field}[正从实验室走向生产线|已进入规模化应用阶段
        +|的竞争焦点已从参数转向生态]。
        [数据显示|据第三方机构统计]，今年前三季度国内{product}市场规模达到{dec:10-900}亿元，
        +同比增长{pct}。
        为了降低开发门槛，{org}同步开放了[软件开发工具包|模型接口|参考设计]，开发者可以免费申请试用。
        在{city}的一家[制造企业|物流园区|三甲医院]，相关系统已经试运行{int:2-11}个月，
        +[效率|准确率]提升明显。
        与此同时，[数据安全|隐私保护|算力成本]问题也引起了不少用户的关注。
        {org}表示，所有用户数据均在本地处理，[不会上传云端|经过加密存储|严格遵守相关法规]。
        记者在现场看到，不少观众排队体验新品，[展台前一度排起长队|工作人员不得不临时限流]。
        有分析师认为，[供应链紧张|上游原材料涨价|海外需求放缓]可能会影响新品的交付节奏。
        过去一年，{org}在研发上投入超过{dec:2-90}亿元，研发人员占员工总数的{pct}。
        目前，该公司已在{city}、{city2}等地设立研发中心，累计申请专利{int:3-90}00余件。
        [值得注意的是|需要指出的是]，同类产品的价格在过去半年下降了约{pct}，行业竞争日趋激烈。
        一位参与测试的工程师告诉记者，新系统在[复杂场景|高负载情况|低温环境]下表现稳定，
        +但[功耗|发热|兼容性]仍有优化空间。
        {city}市[工信局|科技局|发改委]相关负责人表示，将在[用地|融资|人才引进]等方面给予重点支持。
        根据规划，到{int:2027-2030}年，当地{field}核心产业规模有望突破{int:200-2000}亿元。
        [有网友|不少用户]在社交平台上留言称，希望[价格能更亲民|尽快推出国际版|加强售后服务]。
        从技术路线看，[端侧部署|软硬件协同|开源生态]已成为多家厂商共同的选择。
        此次升级还加入了[离线语音助手|实时翻译|多设备协同]功能，
        +[老年用户|商务人士|学生群体]也能轻松上手。
        {org}的竞争对手{org2}此前也发布了类似产品，但在[续航|算力|价格]上仍有一定差距。
        专家提醒，消费者在选购{product}时不必盲目追求参数，应结合自身需求理性消费。
        截至发稿时，{org}股价[上涨|下跌]{pct}，总市值约{int:100-9000}亿元。
        该项目由{org}与{city}[大学|理工大学|科学院]联合研发，前后历时{int:2-6}年。
        在接受记者采访时，{person}坦言，[最难的是把实验室成果变成稳定的产品|团队曾多次推倒重来
        +|核心部件的国产化花了很大力气]。
        我用这台设备连续工作了{int:3-14}天，[续航基本能撑满一整天|屏幕素质确实没话说
        +|系统偶尔会出现卡顿]。
        对于中小企业来说，[上云|数字化改造|引入机器人]最大的顾虑仍然是投入产出比。
        """
    ),
    quotes=_lines(
        """
        我们希望把{field}真正用到生产一线，而不是停留在演示视频里。
        技术迭代很快，但用户真正关心的永远是好不好用、值不值这个价。
        接下来我们会继续加大研发投入，同时和上下游伙伴一起把生态做起来。
        没有哪家企业能够单独完成这件事，开放合作是唯一的出路。
        今年的重点是把成本降下来，让更多中小企业用得起。
        """
    ),
    endings=_lines(
        """
        可以预见，围绕{field}的竞争还将持续升温，谁能率先跑通商业模式，谁就能赢得先机。
        总体来看，这款{product}[诚意十足|亮点与短板并存|更适合尝鲜用户]，是否值得入手还要看个人需求。
        """
    ),
)

_ZH_FINANCE = Topic(
    name="finance",
    lang="zh",
    vocab={
        "org": tuple(
            a + b
            for a in _words("东兴 华信 国元 长江 中泰 安信 恒丰 瑞达 海通达 嘉禾 广润 金桥")
            for b in _words("证券 银行 基金 保险 实业 控股")
        ),
        "index": _words("上证指数 深证成指 创业板指 沪深300 恒生指数 科创50指数"),
        "sector": _words("半导体 新能源汽车 白酒 医药 银行 房地产 光伏 军工 消费电子 有色金属"),
        "role": _words("首席经济学家 首席分析师 基金经理 研究所所长 副行长 策略分析师"),
    },
    titles=_lines(
        """
        {index}[收涨|收跌]{pct}，{sector}板块[领涨|领跌]两市
        {org}发布三季报：净利润同比[增长|下降]{pct}
        央行开展{int:500-9000}亿元逆回购操作，[市场流动性|资金面]保持合理充裕
        {role}{person}：[四季度|明年]A股[有望震荡上行|仍以结构性机会为主|需关注外部风险]
        {city}出台[楼市|消费|稳增长]新政，[首套房首付比例下调|发放{int:1-9}亿元消费券
        +|加大企业信贷支持]
        [北向资金|主力资金]今日净[流入|流出]{dec:5-180}亿元，[重点加仓|大幅减持]{sector}
        {org}拟募资{dec:5-80}亿元，加码{sector}业务
        前{int:3-10}个月{city}[社会消费品零售总额|进出口总额|规上工业增加值]同比增长{pct}
        存款利率又降了，手里的钱[该怎么打理|放哪里更合适]？
        """
    ),
    leads=_lines(
        """
        {date}，A股三大指数[集体收涨|涨跌互现|震荡走低]，{index}[收涨|收跌]{pct}。
        {org}{date}晚间发布公告，披露了今年前三季度的经营业绩。
        记者{date}从{city}市政府新闻发布会上获悉，该市将出台一揽子[稳增长|促消费|稳楼市]措施。
        最近不少读者留言问我，存款利率一降再降，手里的闲钱到底该怎么安排。
        """
    ),
    body=_lines(
        """
        截至收盘，{index}报{int:2800-4200}.{int:10-99}点，两市成交额{int:6000-15000}亿元。
        从板块表现看，{sector}、{sector2}板块涨幅居前，[部分个股涨停|资金明显回流]。
        分析人士认为，近期市场[震荡加剧|缩量调整|情绪回暖]，主要受[政策预期|外围市场|业绩披露]影响。
        公告显示，{org}前三季度实现营业收入{dec:10-900}亿元，同比增长{pct}。
        归属于上市公司股东的净利润为{dec:1-90}亿元，[好于市场预期|略低于市场预期|与去年基本持平]。
        [公司方面表示|公告称]，业绩变动主要源于[主营产品量价齐升|海外业务快速扩张|原材料成本回落]。
        中国人民银行当日开展了{int:100-9000}亿元{int:7-14}天期逆回购操作，
        +中标利率为1.{int:40-90}%。
        市场人士表示，[月末|季末|年末]临近，央行适度投放流动性，有助于平抑资金面波动。
        {role}{person}在研报中写道，[当前估值处于历史较低水平|盈利修复仍需时间
        +|政策效果正在逐步显现]。
        对于普通投资者，专家建议[控制仓位|分散配置|避免追涨杀跌]，不要把全部资金押在单一品种上。
        数据显示，{month}月{city}[新建商品住宅|二手住宅]成交{int:2000-30000}套，
        +环比[上升|下降]{pct}。
        新政明确，在{city}购买首套住房的家庭，[首付比例最低可降至{int:15-25}%
        +|可享受契税补贴|公积金贷款额度相应提高]。
        [多家|部分]中小银行近期下调了存款利率，[一年期|三年期|五年期]定期存款利率
        +降至{int:1-2}.{int:10-95}%。
        业内人士提醒，理财产品[不再承诺保本|净值会出现波动]，投资者应认真阅读产品说明书。
        今年以来，{sector}行业[景气度持续回升|出现阶段性过剩|面临价格战压力]，
        +龙头企业市场份额进一步集中。
        {org}相关负责人介绍，本次募集资金将主要用于[扩充产能|研发投入|补充流动资金|数字化改造]。
        海关总署数据显示，前{int:3-10}个月我国[出口|进口|货物贸易进出口]总值同比增长{pct}。
        [外资机构|多家国际投行]近期[上调|维持]了对中国经济增长的预期，
        +认为[内需|出口|制造业投资]仍有韧性。
        从资金流向看，[保险资金|社保基金|公募基金]三季度[增持|新进]了{int:10-90}只个股，
        +主要集中在{sector}领域。
        值得关注的是，[人民币汇率|美元指数|国际油价]近期波动加大，对相关行业盈利构成一定扰动。
        {city}[统计局|商务局]发布的数据显示，当地[社会消费品零售总额|网络零售额]
        +达到{dec:100-9000}亿元，同比增长{pct}。
        有[基金经理|私募人士]表示，眼下[更看重企业现金流|更关注分红回报|倾向于低估值蓝筹]，
        +而不是短期题材炒作。
        在业绩说明会上，有投资者追问[分红方案|海外风险|新产品进度]，
        +管理层回应称[正在研究|将择机公告|进展顺利]。
        市场普遍预期，[下一次降准|新一轮稳增长政策|年底前的政策会议]将为市场提供新的方向。
        截至{month}月末，[广义货币|人民币贷款余额|社会融资规模存量]同比增长{pct}，
        +[增速与上月持平|增速略有回落]。
        我自己的做法是把钱分成三份：日常备用金、稳健理财和长期定投[各占一部分|大致按三比五比二分配]，心里会踏实很多。
        """
    ),
    quotes=_lines(
        """
        短期波动不必过度解读，真正决定长期走势的还是企业盈利。
        我们对明年的经济增长保持谨慎乐观，关键在于需求能否持续恢复。
        现在的估值已经反映了不少悲观预期，往下的空间有限，往上需要耐心。
        投资者最容易犯的错误，就是在市场最热的时候冲进来。
        政策的方向很清楚，就是稳预期、稳就业，后续还会有配套措施出台。
        """
    ),
    endings=_lines(
        """
        以上内容仅供参考，不构成任何投资建议。市场有风险，投资需谨慎。
        展望后市，多数机构认为市场将延续[震荡格局|结构性行情|修复态势]，{sector}值得持续跟踪。
        """
    ),
)

_ZH_SPORTS = Topic(
    name="sports",
    lang="zh",
    vocab={
        "team": _words(
            "东海海港 江城雄狮 蓉城飞虎 北岸猎鹰 南山勇士 滨江竞技 西岭银狐 长风体育 金沙烈焰"
        ),
        "league": _words("联赛 超级联赛 职业联赛 甲级联赛"),
        "event": _words(
            "城市马拉松 青少年足球联赛 全民健身运动会 羽毛球公开赛 自行车邀请赛 半程马拉松"
        ),
        "sport": _words("田径 游泳 乒乓球 篮球 足球 排球 羽毛球"),
        "role": _words("主教练 队长 俱乐部总经理 体育评论员 助理教练"),
    },
    titles=_lines(
        """
        {league}第{int:5-30}轮：{team}主场{int:1-4}比{int:0-3}[击败|力克|险胜]{team2}
        {team}[官宣|正式宣布]{person}出任新任主教练
        {city}{event}[鸣枪开跑|圆满落幕]，{int:5000-40000}名[选手|跑者]参赛
        [伤病困扰|连败之后]，{team}[如何走出低谷|能否重回正轨]
        {person}赛后谈[失利|晋级|夺冠]：[我们还有很多不足|这是全队努力的结果|下一场会更难]
        {event}{city}站开赛，[多名世界冠军|{int:20-60}支队伍]同场竞技
        全国青少年{sport}锦标赛收官，{city}代表队获得{int:2-9}枚金牌
        """
    ),
    leads=_lines(
        """
        在{date}晚进行的{league}第{int:5-30}轮比赛中，{team}坐镇主场迎战{team2}。
        {date}早上{int:7-8}点，{city}{event}正式鸣枪起跑。
        {team}{date}通过官方渠道宣布，{person}正式出任球队主教练。
        连续{int:3-5}场不胜之后，{team}的处境正变得越来越被动。
        """
    ),
    body=_lines(
        """
        开场仅{int:3-20}分钟，{team}就通过一次[快速反击|定位球|边路传中]取得领先。
        易边再战，{team2}[加强了中场逼抢|换上两名生力军|调整为三中卫阵型]，场面一度占据主动。
        第{int:60-89}分钟，{person}[禁区外一脚远射|头球破门|单刀推射]，
        +帮助球队[扩大比分|扳平比分|锁定胜局]。
        全场比赛，{team}控球率达到{int:45-68}%，射门{int:8-22}次，其中射正{int:3-9}次。
        赛后，{team2}主教练坦言，球队在[防守端犯了太多低级错误|体能分配上出了问题
        +|关键球处理上不够冷静]。
        本场胜利后，{team}积分升至{int:20-60}分，暂列积分榜第{int:1-8}位。
        据了解，{team}本赛季[饱受伤病困扰|阵容调整较大|引进了多名年轻球员]，外界一度并不看好。
        现场{int:12000-45000}名球迷[冒雨观战|身着主队球衣|齐声高唱队歌]，为球队加油助威。
        赛道途经[滨江大道|老城区|奥体中心|湿地公园]等多处地标，沿途风景吸引了不少选手驻足拍照。
        组委会在沿途设置了{int:10-40}个补给站和{int:5-20}个医疗救护点，
        +并配备了{int:200-800}名志愿者。
        最终，[男子|女子]全程冠军由{person2}以{int:2-3}小时{int:5-59}分{int:10-59}秒的成绩获得。
        赛事期间，{city}交警部门对部分路段实施了临时交通管制，市民出行总体有序。
        今年{int:19-34}岁的{person}是俱乐部青训体系培养出来的，
        +[本赛季已经打进{int:3-15}球|多次入选国家队集训名单]。
        有体育评论员认为，{team}的[战术打法|人员配置|板凳深度]已经明显成熟，
        +[有望冲击前三|争冠形势乐观]。
        俱乐部总经理表示，[下赛季将继续坚持青训路线|会在转会窗口补强后防
        +|不会因为一两场输球就换帅]。
        近年来，{city}[大力推进全民健身|持续完善体育场馆设施|积极引进高水平赛事]，
        +市民参与运动的热情明显提高。
        数据显示，全市经常参加体育锻炼的人口比例已经达到{int:35-48}%，
        +[新建|改造]社区健身点{int:50-300}个。
        本届赛事吸引了来自全国{int:15-31}个省区市的选手报名，
        +[年龄最大的选手已经{int:65-78}岁|参赛人数创历史新高]。
        下一轮比赛，{team}将[客场挑战|回到主场迎战]{team3}，
        +两队上赛季[交手时互有胜负|曾打出一场激烈的平局]。
        这位老将赛后说，[自己还能再踢几年|每一场比赛都当作最后一场来打|希望把经验传给年轻人]。
        {team2}的防守非常[严密|有韧性]，{team}直到[下半场|最后十分钟]才找到突破口。
        比赛结束后，不少球迷在[球场外|社交媒体上]久久不愿离去，[与球员合影留念|为球队的表现点赞]。
        作为一名跑了{int:3-10}年的业余跑者，我[最怕的就是后半程抽筋|这次终于跑进了四小时
        +|提前两个月就开始备赛]。
        """
    ),
    quotes=_lines(
        """
        今天的胜利属于每一位球员，大家在场上拼到了最后一分钟。
        输球是我的责任，我们要尽快调整好状态，准备下一场比赛。
        年轻球员需要机会，也需要时间，我对他们有信心。
        比赛没有想象中那么轻松，对手的防守给我们制造了很大麻烦。
        跑完全程的那一刻，我觉得这几个月的训练都值得了。
        """
    ),
    endings=_lines(
        """
        联赛进入冲刺阶段，每一分都至关重要，{team}能否延续好状态，我们拭目以待。
        """
    ),
)

_ZH_HEALTH = Topic(
    name="health",
    lang="zh",
    vocab={
        "hospital": _words(
            "{city}市第一人民医院 {city}市中医院 {city}市儿童医院 {city}大学附属医院"
        ),
        "dept": _words("心内科 呼吸科 内分泌科 儿科 骨科 消化内科 皮肤科 眼科 神经内科"),
        "disease": _words("高血压 糖尿病 流感 过敏性鼻炎 颈椎病 胃食管反流 近视 骨质疏松 失眠"),
        "role": _words("主任医师 副主任医师 护士长 营养师 疾控中心专家"),
    },
    titles=_lines(
        """
        [入冬|换季]后{disease}[高发|患者增多]，医生提醒[注意这几点|别大意]
        {hospital}{dept}[开设|上线]{disease}[专病门诊|线上复诊]
        {role}{person}：[预防|管理]{disease}，[关键在于日常习惯|别只靠吃药]
        {city}启动[秋冬季流感疫苗接种|老年人免费体检|儿童近视筛查]，[覆盖|惠及]{int:10-90}万人
        每天[走一万步|喝八杯水|睡八小时]真的有必要吗？[专家|医生]这样说
        [体检报告|化验单]上这{int:3-6}个指标异常，一定要重视
        """
    ),
    leads=_lines(
        """
        近期气温[骤降|起伏较大]，{hospital}{dept}门诊量明显增加，日均接诊{int:200-900}人次。
        {date}，{city}正式启动[秋冬季流感疫苗接种|老年人免费健康体检|儿童青少年近视筛查]工作。
        说起{disease}，很多人的第一反应是“那是老年病”，其实并不尽然。
        """
    ),
    body=_lines(
        """
        {dept}{role}{person}介绍，就诊患者中以[老年人|儿童|上班族]居多，
        +不少人是[症状加重后才来就医|反复发作]。
        [医生提醒|专家建议]，{disease}患者应[规律服药|定期复查|控制饮食]，不要自行停药或更换药物。
        据统计，我国{disease}患者人数已超过{int:2-30}00万，而知晓率和控制率仍然偏低。
        很多人认为[年轻人不会得{disease}|没有症状就不用管]，这其实是一个误区。
        日常生活中，应保持[低盐低脂饮食|规律作息|适量运动]，每周进行{int:3-5}次中等强度锻炼。
        如果出现[胸闷心慌|持续发热|视物模糊|夜间咳嗽加重]等情况，应及时到正规医院就诊。
        为了方便患者，医院近期上线了[线上复诊|检查报告手机查询|慢病处方延长]服务，减少患者往返奔波。
        {city}疾控中心数据显示，本周全市报告[流感样病例|手足口病例|诺如病毒聚集性疫情]
        +较上周[上升|下降]{pct}。
        疾控专家提醒，[老年人|慢性病患者|孕妇|婴幼儿]属于重点人群，[建议尽早接种疫苗
        +|外出时佩戴口罩|尽量避免前往人群密集场所]。
        此次活动共设置接种点{int:100-600}个，市民可通过[小程序|社区卫生服务中心|家庭医生]预约。
        营养师建议，早餐可以选择[全麦面包搭配鸡蛋和牛奶|燕麦粥加坚果|杂粮馒头配蔬菜]，
        +避免[油炸食品|高糖饮料]。
        研究表明，长期[熬夜|久坐|精神紧张]会[削弱免疫力|增加心血管疾病风险|诱发消化系统问题]。
        一位{int:40-75}岁的患者告诉记者，自己[有十多年的吸烟史|平时很少运动|一直觉得身体硬朗]，
        +直到[体检|一次晕倒]才发现问题。
        对于儿童，家长要注意[控制看屏幕的时间|保证户外活动|养成勤洗手的习惯]，
        +每天户外活动不少于{int:1-2}小时。
        专家指出，网络上流传的[“偏方”|“神药”|“排毒疗法”]大多缺乏科学依据，盲目尝试可能延误病情。
        去年以来，{city}[新增|改扩建]社区卫生服务站{int:20-120}个，家庭医生签约覆盖率达到{int:40-80}%。
        医生同时提醒，[体检报告中的|化验单上的]箭头并不一定代表生病，需要结合具体情况综合判断。
        据介绍，该院已组建由{int:5-20}名专家组成的多学科团队，为复杂病例提供一站式诊疗。
        [对于上班族来说|对于中老年人来说]，每隔一小时起身活动几分钟，
        +就能在一定程度上缓解[颈肩疼痛|腰背不适]。
        随着医保政策的调整，{int:20-90}种[常用药|慢性病用药]的价格平均下降了{pct}，患者负担有所减轻。
        我自己就是{disease}患者，确诊那年[才三十出头|刚换了新工作]，
        +[后来靠饮食和运动控制得还不错|现在每天都会记录数据]。
        """
    ),
    quotes=_lines(
        """
        很多慢性病早期没有明显症状，定期体检是发现问题最简单的办法。
        药物只是一方面，饮食和运动同样重要，患者要学会自我管理。
        我们不建议大家自行上网查资料给自己下诊断，有疑问还是要来医院。
        秋冬季是呼吸道疾病高发期，老人和孩子要特别注意保暖。
        健康的生活方式没有捷径，关键是坚持。
        """
    ),
    endings=_lines(
        """
        温馨提示：本文内容仅作健康科普，具体诊疗请遵医嘱。
        健康无小事，关注自己和家人的身体变化，有问题早发现、早治疗。
        """
    ),
)

_ZH_TRAVEL = Topic(
    name="travel",
    lang="zh",
    vocab={
        "spot": _words(
            "古镇 国家森林公园 湿地公园 滨海步道 雪山景区 老街 温泉度假区 石窟 古村落 草原"
        ),
        "food": _words("米粉 烤鱼 酸汤鱼 豆腐花 羊肉汤 酱板鸭 糯米糍粑 油茶 牛肉面 蟹黄包"),
        "role": _words("文旅局局长 景区负责人 导游 民宿老板 旅游专家"),
    },
    titles=_lines(
        """
        {city}{spot}[迎来客流高峰|推出夜游项目|恢复开放]，单日接待游客超{int:1-9}万人次
        [秋冬|周末|假期]去哪玩？这{int:5-10}条{city}[周边游线路|徒步路线|赏枫路线]值得收藏
        {city}文旅局：[景区门票半价|推出文旅消费券|上线智慧旅游平台]
        在{city}的{spot}住了{int:2-5}天，我[发现了一个不一样的城市|终于明白为什么这么多人来]
        [民宿|酒店]预订量同比增长{pct}，{city}[冰雪游|乡村游|研学游]持续升温
        {city}至{city2}[高铁|航线]开通，单程通行时间缩短至{int:1-4}小时
        """
    ),
    leads=_lines(
        """
        据{city}文化和旅游局统计，[假期|上周末|本月以来]全市共接待游客{dec:10-500}万人次。
        这次去{city}完全是临时起意，[订好车票的时候已经是前一天晚上|出发前连攻略都没来得及看]。
        {date}，{city}至{city2}的[高铁|直飞航线]正式开通，两地往来更加便捷。
        """
    ),
    body=_lines(
        """
        在{spot}，[游客们|不少家庭]或[拍照打卡|品尝当地小吃|租船游湖]，
        +[现场人气很旺|处处洋溢着节日气氛]。
        为了应对客流高峰，景区实行[分时段预约|限流管理|线上购票]，
        +并增派了{int:50-300}名工作人员维持秩序。
        我们是早上{int:6-9}点出发的，[沿着山路走了两个多小时|坐了四十分钟的大巴]，
        +终于到达[山顶观景台|古镇入口]。
        当地的{food}很有特色，一份大约{int:15-60}元，[分量十足|味道偏辣|老板是本地人]。
        晚上的{spot}[挂满了红灯笼|灯光倒映在河面上]，[比白天更有味道|游客反而比白天更多]。
        需要提醒的是，山区早晚温差较大，[建议带上厚外套|最好准备防滑鞋|注意防晒]。
        景区附近的民宿价格在每晚{int:1-3}00元到{int:4-9}00元不等，[节假日需要提前预订|周末房源比较紧张]。
        {spot}始建于[明代|清代|宋代]，距今已有{int:3-12}00多年历史，
        +保存着大量[古建筑|石刻|民居]。
        近年来，{city}[深入挖掘本地文化资源|推动文旅融合发展|大力发展乡村旅游]，
        +一批[网红打卡点|特色小镇|非遗工坊]相继出现。
        文旅局负责人表示，将推出[{int:10-50}条精品线路|文旅消费券|景区联票]，
        +进一步激活[冬季旅游市场|夜间消费|周边游需求]。
        [高铁开通后|新机场投用后]，{city2}游客到{city}只需{int:1-3}个多小时，
        +[“周末游”|“说走就走”]变得更加方便。
        一位来自{city2}的游客告诉记者，[这是她第二次来这里|他们一家三口是自驾来的
        +|自己是看了短视频专门赶来的]。
        在线旅游平台数据显示，近一个月{city}相关[酒店|民宿|门票]预订量同比增长{pct}，
        +[其中年轻人占比超过六成|亲子游订单增长最快]。
        [如果时间充裕|建议大家]可以安排{int:2-4}天行程，第一天[逛老街|看日出]，
        +第二天[徒步|泡温泉]。
        当地村民{person}把自家老房子改成了民宿，[旺季时几乎天天满房|一年收入比以前种地高出好几倍]。
        景区相关负责人提醒游客[文明旅游|不要随意投喂动物|不要偏离规定游览路线]，共同保护好生态环境。
        目前，{spot}已接入[智慧旅游平台|电子导览系统]，游客扫码即可收听[讲解|景点介绍]。
        说实话，[出发前我对这里并没有太多期待|这次旅行比想象中累]，
        +但[一路上的风景完全超出了预期|回来之后还一直惦记着]。
        沿途可以看到[成片的银杏林|连绵的梯田|清澈的溪流]，[不少摄影爱好者专程赶来|随手一拍都是大片]。
        交通方面，从{city}火车站坐[旅游专线|公交车]大约{int:30-90}分钟就能到，[非常方便|班次不算多]。
        """
    ),
    quotes=_lines(
        """
        我们希望游客来了不只是拍几张照片，而是真正感受到当地的生活。
        今年的客流比去年明显增加，特别是年轻人和亲子家庭。
        接下来会继续完善停车场、厕所等配套设施，提升游客体验。
        这里的节奏很慢，适合放空自己，我已经计划明年再来。
        """
    ),
    endings=_lines(
        """
        旅行的意义也许就在于此：换一个地方，看看别人的生活，再回到自己的日子里。
        以上就是这次行程的一点记录，希望对准备出发的朋友有所帮助。
        """
    ),
)

_ZH_EDUCATION = Topic(
    name="education",
    lang="zh",
    vocab={
        "school": _words(
            """{city}第一中学 {city}实验小学 {city}外国语学校
            {city}师范大学附属中学 {city}职业技术学院"""
        ),
        "subject": _words("数学 语文 英语 物理 编程 体育 美术 科学 劳动教育"),
        "role": _words("校长 教务处主任 班主任 教育局副局长 教育专家"),
    },
    titles=_lines(
        """
        {city}公布{year}年[中考|义务教育招生]政策，[这些变化|有{int:3-8}项调整]值得关注
        {school}[开设|试点]{subject}[特色课程|选修课|课后服务]，学生[反响热烈|自主选择]
        [“双减”|课后服务]推行{int:2-4}年后：{city}[学生作业时间|家长焦虑]有何变化
        {role}{person}：[教育不是赛跑|好的课堂要让学生动起来|家校共育需要边界感]
        {city}新增[中小学学位|幼儿园学位]{int:1000-30000}个，[缓解入学难|满足就近入学需求]
        高校毕业生[就业|考研]观察：[技能型岗位更受青睐|选择回乡就业的人多了]
        """
    ),
    leads=_lines(
        """
        记者从{city}市教育局获悉，今年全市[计划新建|改扩建]中小学{int:5-40}所。
        {date}，{city}市教育局正式发布了{year}年[中考招生|义务教育招生入学]政策。
        {school}从本学期起开设{subject}[特色课程|选修课程]，每周安排{int:1-4}课时。
        作为一名有{int:8-25}年教龄的老师，我最近一直在想一个问题：孩子们到底需要什么样的课堂。
        """
    ),
    body=_lines(
        """
        课堂上，学生们[分组讨论|动手实验|轮流上台展示]，[气氛十分活跃|老师只在关键处加以引导]。
        据介绍，[课后服务|晚托服务]覆盖全市{pct}的义务教育学校，参与学生超过{int:5-60}万人。
        [有家长表示|一位家长告诉记者]，孩子[放学后有了更多时间运动|作业量明显减少
        +|回家后能自己安排阅读]。
        也有家长担心，[作业少了成绩会不会下滑|课外培训减少后孩子缺乏拓展
        +|升学竞争压力并没有真正减轻]。
        {role}{person}认为，减负的关键在于[提高课堂效率|优化作业设计|改变单一的评价方式]，
        +而不是简单地少布置作业。
        新政策规定，{year}年起[体育考试分值提高到{int:50-100}分|综合素质评价纳入录取参考
        +|取消部分特长加分项目]。
        今年{city}高校毕业生规模预计达到{int:5-40}万人，[创历史新高|较去年增加{int:1-3}万人]。
        招聘会现场，[智能制造|新能源|医疗健康|数字经济]类企业的展位前[排起了长队|人气最旺]。
        一位应届毕业生说，[相比大城市的高房价|考虑到父母年纪大了]，自己更愿意回到{city2}工作。
        [教育专家|业内人士]指出，职业教育正在[摆脱“低人一等”的标签|与产业需求深度对接]，
        +[订单班|现代学徒制]越来越受欢迎。
        为了提升教师队伍水平，{city}今年[招聘新教师{int:300-3000}名|组织骨干教师轮岗交流
        +|投入{int:1-9}千万元用于教师培训]。
        {school}校长{person2}说，学校希望[让每个孩子都能找到自己的兴趣|把时间还给学生
        +|培养学生的独立思考能力]。
        在乡村学校，[线上同步课堂|城乡结对帮扶|支教老师]让孩子们也能享受到优质教育资源。
        据了解，{city}将严格落实[就近入学|“公民同招”|阳光分班]政策，
        +任何学校不得以[考试|竞赛证书]方式选拔学生。
        [读书节|科技节|运动会]期间，学生们[自编自演了话剧|展示了自制的机器人|参加了接力赛跑]，
        +家长也受邀到校观摩。
        调查显示，[超过六成|近一半]的中学生每天睡眠不足{int:7-8}小时，[学业压力|手机使用]是主要原因。
        专家提醒家长，[不要把孩子的时间排得太满|多陪孩子聊天|尊重孩子的兴趣]，
        +心理健康和学业成绩同样重要。
        报名时间为{month}月{int:1-20}日至{int:21-28}日，[家长可通过教育局官方网站在线填报
        +|逾期将不再受理]。
        我们班上有个孩子，[以前上课从不举手|数学成绩一直垫底]，
        +[这学期却主动报名当了课代表|参加科技节后像变了一个人]。
        """
    ),
    quotes=_lines(
        """
        教育是慢的艺术，急不得，也等不得。
        我们不追求每个孩子都考高分，而是希望他们都能成为更好的自己。
        减负不是降低要求，而是把力气用在真正有价值的地方。
        学校、家庭和社会要形成合力，任何一方缺位都不行。
        """
    ),
    endings=_lines(
        """
        教育改革没有一蹴而就的答案，需要学校、家庭和社会持续投入耐心。
        """
    ),
)

_ZH_LOCAL = Topic(
    name="local",
    lang="zh",
    vocab={
        "job": _words("公交司机 环卫工人 快递员 外卖骑手 出租车司机 社区网格员"),
        "dept": _words("住建局 交通运输局 城管局 市政园林局"),
        "role": _words("街道办主任 社区书记 项目负责人 城管队员"),
    },
    titles=_lines(
        """
        {city}{road}[改造工程|拓宽工程|地下综合管廊]完工，预计{month}月{int:1-28}日通车
        {district}[老旧小区改造|加装电梯|垃圾分类]进展如何？记者走访了{int:3-8}个小区
        [暖心|点赞]！{city}{job}{person}[救起落水儿童|拾金不昧|连夜帮助走失老人回家]
        {city}[地铁|公交]{int:2-12}号线[调整运营时间|新增站点|即将开通]，市民出行更方便
        寒潮来袭！{city}气温将下降{int:6-14}℃，[请注意防寒保暖|部分路段或结冰]
        {district}[菜市场|社区食堂|口袋公园]“变身”记：[家门口的幸福感|居民生活更便利]
        """
    ),
    leads=_lines(
        """
        记者从{city}市{dept}获悉，{road}[改造工程|拓宽工程]已进入收尾阶段，预计本月底完工。
        {date}上午，{city}一名{job}在{road}附近[发现了一名走失老人|捡到一个装有现金的钱包
        +|看到有人落水]。
        根据气象部门预报，受冷空气影响，未来三天{city}[气温将持续走低|将出现大风降温天气]。
        走进{district}{community}，[新加装的电梯已经投入使用|外墙翻新工作基本完成|新铺的沥青路面平整干净]。
        """
    ),
    body=_lines(
        """
        该工程全长约{dec:1-9}公里，总投资{dec:1-20}亿元，[新增了非机动车道|同步改造了地下管网
        +|沿线新建了口袋公园]。
        施工期间，相关部门[设置了临时便道|优化了公交线路|安排了交通协管员]，尽量减少对市民出行的影响。
        家住{int:3-7}楼的{person}老人说，[以前上下楼要歇好几回|过去一下雨路面就积水]，
        +现在[方便多了|再也不用发愁了]。
        据统计，今年{city}计划改造老旧小区{int:80-600}个，涉及居民{int:2-20}万户。
        [社区工作人员|网格员]介绍，改造方案前后征求了居民意见{int:3-6}次，
        +[大家提出的停车难问题|充电桩不足的问题]也一并得到解决。
        他[第一时间报警|立即停车上前询问|毫不犹豫地跳入水中]，
        +[并在原地等候民警赶到|最终帮助当事人脱离危险]。
        事后，[当事人家属|失主]专门送来锦旗表示感谢，他却说这是[换了谁都会做的事|应该的]。
        最低气温可能降至{int:-5-5}℃，[部分山区将出现降雪|早晚可能出现道路结冰]。
        气象专家提醒，[早晚出行注意防寒保暖|驾车途经桥面时注意减速|及时加固户外广告牌]。
        {city}轨道交通集团发布消息，[地铁{int:2-12}号线|多条公交线路]将从{month}月{int:1-28}日起
        +[延长运营时间|调整发车间隔|新增{int:2-6}座车站]。
        在{district}的一处菜市场，[经过升级改造|引入智慧管理系统]后，
        +[地面干净了|摊位整齐了|价格也更透明了]。
        不少居民表示，[家门口的口袋公园|新开的社区食堂|小区里的共享晾衣区]
        +让生活[方便了不少|多了几分烟火气]。
        目前，{district}已建成[社区食堂|养老服务站|“15分钟便民生活圈”]{int:10-60}个，
        +[每天服务老人{int:500-3000}人次|覆盖常住居民{int:10-60}万人]。
        [城管部门|街道办]相关负责人表示，将持续开展[占道经营|违规停车|噪音扰民]专项整治，
        +回应群众关切。
        市民如发现[道路破损|井盖缺失|路灯不亮]等问题，可拨打12345市民服务热线反映。
        据悉，{city}今年已累计[新增公共停车位|建成充电桩|种植行道树]{int:2000-30000}个，
        +[城市面貌持续改善|基本满足居民需求]。
        夜幕降临，{road}两侧的[路灯亮起|夜市开张]，[散步的居民|前来打卡的游客]络绎不绝。
        {district}{role}{person2}介绍，[下一步还将增设休闲座椅和儿童游乐设施|小区停车位将增加一百多个
        +|加装电梯的费用由政府补贴一部分]。
        """
    ),
    quotes=_lines(
        """
        我们把居民的意见放在第一位，改什么、怎么改，都由大家商量着来。
        城市管理既要有力度，也要有温度。
        这件事本来就是举手之劳，没想到大家会这么关注。
        小区变化太大了，住在这里越来越舒心。
        """
    ),
    endings=_lines(
        """
        小切口关联大民生，一件件实事正在让{city}这座城市变得更有温度。
        """
    ),
)

_ZH_CULTURE = Topic(
    name="culture",
    lang="zh",
    vocab={
        "film": _words(
            "远山的回声 晚风 归途 长夜将明 南方来信 海边的房子 星河彼岸 第七个春天 小城故事"
        ),
        "book": _words("河流的方向 父亲的菜园 一个人的车站 旧信 山那边 灯下 雾中的城"),
        "exhibit": _words("山河印记 丝路遗珍 千年窑火 江南雅集 纸上春秋"),
        "craft": _words("皮影戏 剪纸 昆曲 木版年画 刺绣 竹编"),
        "role": _words("导演 编剧 作家 影评人 策展人 非遗传承人"),
    },
    titles=_lines(
        """
        电影《{film}》[定档|上映首周]，[票房突破{dec:1-20}亿元|口碑持续发酵]
        {city}博物馆推出《{exhibit}》特展，[{int:1-4}00余件文物|多件珍品首次亮相]
        读完《{book}》，我[想起了自己的童年|终于理解了父亲|重新思考了工作的意义]
        {role}{person}：[好故事要扎根生活|创作需要耐得住寂寞|年轻观众其实很挑剔]
        {craft}进校园：{city}的孩子们爱上了这门老手艺
        """
    ),
    leads=_lines(
        """
        由{person}执导的电影《{film}》[日前正式上映|将于下月登陆全国院线]。
        {date}，《{exhibit}》特展在{city}博物馆开幕，吸引了大批市民前来参观。
        这本《{book}》我断断续续读了{int:2-6}个月，[每次翻开都有新的感受|有几章反复看了好几遍]。
        每周三下午，{craft}传承人{person}都会准时出现在{city}一所小学的教室里。
        """
    ),
    body=_lines(
        """
        影片讲述了[一个普通家庭三代人的故事|一名乡村教师坚守山区二十年的经历
        +|两个年轻人在大城市打拼的故事]。
        据票务平台数据，影片上映{int:3-10}天票房突破{dec:1-20}亿元，观众评分{int:7-8}.{int:1-9}分。
        不少观众表示，影片[节奏舒缓但后劲很足|细节真实打动人心|结尾处让人忍不住落泪]。
        也有影评人认为，影片[后半段略显拖沓|人物塑造不够立体|配乐有些喧宾夺主]，但整体仍值得一看。
        此次展出的{int:1-4}00余件展品中，[有{int:20-80}件属于国家一级文物|不少是首次公开展出]。
        展览分为三个单元，[借助数字技术还原了历史场景|观众可以通过触摸屏了解文物背后的故事]。
        作者用[朴素的文字|克制的笔触|大量的细节]写出了[小人物的悲欢|一个时代的变迁|亲情的复杂与温暖]。
        书中有一段话让我印象很深：[人总要在某个时刻和过去和解|真正的勇气是看清生活之后依然热爱它
        +|故乡是回不去的地方，也是走不出的地方]。
        他[从最基础的手法教起|给孩子们讲每一个作品背后的故事]，
        +[一学期下来，不少孩子已经能独立完成作品|课堂上常常笑声不断]。
        一名{int:9-12}岁的学生说，[原来觉得传统艺术离自己很远|刚开始连剪刀都拿不稳]，
        +[现在已经能独立完成作品了|现在特别喜欢这门课]。
        近年来，[国潮文化|传统节日|地方戏曲]在年轻人中间持续走红，
        +相关短视频播放量累计超过{int:2-90}亿次。
        [业内人士|文化学者]认为，传统文化的传播既要守住根脉，
        +也要[善于使用年轻人熟悉的表达方式|与现代生活建立连接]。
        据了解，展览将持续至{year}年{int:1-6}月，[免费向公众开放|需提前在官方公众号预约]，每周一闭馆。
        主演{person2}在路演时透露，为了演好这个角色，[自己提前半年体验生活|专门学习了当地方言
        +|减重了十几斤]。
        回看这部作品，我最喜欢的反而是[那些看似无关紧要的日常片段|几个配角之间的对话
        +|导演留下的大量空白]。
        影片中[大量使用实景拍摄|出现了不少{city}的城市地标]，
        +不少本地观众[专门去取景地打卡|看得格外亲切]。
        读到最后一章的时候，[窗外正好下起了雨|已经是凌晨两点多]，我合上书，[很久都没有睡着|给母亲打了个电话]。
        """
    ),
    quotes=_lines(
        """
        我一直相信，真诚的作品一定能找到它的观众。
        传统艺术最怕的不是没人看，而是没人愿意学。
        拍这部电影，我最想表达的是普通人身上的光。
        写作对我来说是一种整理，把生活里来不及想清楚的事情慢慢想清楚。
        """
    ),
    endings=_lines(
        """
        好的作品不会被时间淹没，它总会在某个时刻，击中某个需要它的人。
        """
    ),
)

ZH_TOPICS: tuple[Topic, ...] = (
    _ZH_TECH,
    _ZH_FINANCE,
    _ZH_SPORTS,
    _ZH_HEALTH,
    _ZH_TRAVEL,
    _ZH_EDUCATION,
    _ZH_LOCAL,
    _ZH_CULTURE,
)

# Sentences any zh article may use: transitions, background and follow-up lines.
_ZH_GENERIC = _lines(
    """
    这一变化引起了社会各界的广泛关注。
    业内普遍认为，这一举措[将对行业发展产生深远影响|释放了积极信号|仍需时间检验效果]。
    记者注意到，类似的做法此前已在{city2}等地试点，并取得了一定成效。
    对此，[有专家|不少网友]表示[理解和支持|仍有一些担忧]，认为还需要进一步观察。
    下一步，相关部门将[加强监管|完善配套措施|总结经验并逐步推广]。
    据了解，相关工作将在[年底前|明年上半年|未来三年内]全面完成。
    [不过|当然]，也有人提出了不同看法，认为[步子可以迈得更稳一些|还要兼顾不同群体的实际需求]。
    事实上，这并不是{city}第一次在这方面做出尝试。
    从全国范围看，[越来越多的城市|不少地方]也在探索类似的路径。
    """
)
_ZH_QUOTE_FRAMES = _lines(
    """
    {role}{person}[表示|认为|指出]：“{quote}”
    “{quote}”{person}[说|告诉记者|在接受采访时表示]。
    谈及未来，{person}说：“{quote}”
    """
)
_ZH_ENDINGS = _lines(
    """
    本报将持续关注后续进展。
    对此，记者将继续跟踪报道。
    你怎么看？欢迎在评论区留言讨论。
    以上只是我的一些个人看法，欢迎大家交流指正。
    """
)

# --------------------------------------------------------------------------- en vocab

_EN_FIRST = _words(
    """James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara
    Richard Susan Joseph Jessica Thomas Sarah Daniel Karen Priya Wei Carlos Sofia Ahmed Olivia
    Liam Emma Noah Ava Ethan Mia Lucas Chloe Mateo Hannah Owen Grace Samuel Nora"""
)
_EN_LAST = _words(
    """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
    Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Thompson White Harris Clark Lewis
    Walker Young Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Chen
    Patel Nguyen Okafor Kowalski"""
)
_EN_CITIES = _words(
    """Portland|Austin|Denver|Seattle|Boston|Chicago|Atlanta|Phoenix|Nashville|Minneapolis
    Pittsburgh|Sacramento|Toronto|Vancouver|Manchester|Leeds|Bristol|Glasgow|Dublin|Melbourne
    Brisbane|Adelaide|Auckland|Singapore|Cleveland|Richmond|Madison|Tucson|Raleigh|Omaha"""
)
_EN_COMMON: dict[str, tuple[str, ...]] = {
    "city": _EN_CITIES,
    "district": _words(
        "Riverside|Northgate|Old Town|Harbor District|Eastside|Mill Creek|Westfield"
    ),
    "road": _words("Main Street|Oak Avenue|Harbor Road|Elm Street|Station Road|Lakeshore Drive"),
    "role": _words("spokesperson|local official|project manager"),
}

_EN_TECH = Topic(
    name="tech",
    lang="en",
    vocab={
        "org": tuple(
            a + " " + b
            for a in _words("Nimbus Quantrix Brightline Corelink Vantage Helix Northwind Lumen")
            for b in _words("Labs Systems Technologies Robotics")
        ),
        "product": _words(
            """foldable phone|AI assistant|data center chip|smartwatch|home robot|cloud platform
            electric scooter|VR headset|open-source database|satellite modem"""
        ),
        "field": _words(
            "artificial intelligence|chip design|cloud computing|cybersecurity|robotics"
        ),
        "role": _words("chief executive|chief technology officer|head of product|co-founder"),
    },
    titles=_en_lines(
        """
        {org} unveils new {product} with [longer battery life|a faster processor|a lower price tag]
        Inside {city}'s push to become a hub for {field}
        {org} {role} {person} says {field} is
        + [at a turning point|still overhyped|finally paying off]
        Hands-on with the {org} {product}: [what works and what doesn't|worth the upgrade?]
        {city} startups raised ${int:40-900} million for {field} this year, report says
        Why the {product} market is [cooling|heating up] faster than analysts expected
        """
    ),
    leads=_en_lines(
        """
        {org} on {date} introduced a new {product}, its [most ambitious|most affordable] device yet.
        {city} has quietly become one of the busiest places in the country for {field} startups.
        I spent {int:5-14} days with the new {product} from {org}, and my feelings are mixed.
        """
    ),
    body=_en_lines(
        """
        The company said performance improved by {pct} over the previous generation
        + while power draw fell by {pct}.
        Shipments are expected to begin [next month|before the holidays|early next year]
        + in [North America and Europe|a handful of markets].
        Analysts say the bigger question is whether customers will pay a premium for
        + [marginal gains|features they rarely use].
        Industry data show the {product} market grew {pct} in the first three quarters of the year.
        {org} also opened its [developer kit|model API|reference design] to outside developers
        + free of charge.
        At a [warehouse|hospital|factory] outside {city}, an early version of the system
        + has been running for {int:2-11} months.
        Privacy advocates have raised concerns about how much [voice data|location data]
        + is collected.
        The company insists that [data never leaves the device|all records are encrypted at rest].
        Rival {org2} launched a similar product in the spring, but reviews
        + [were lukewarm|focused on its price].
        Prices for comparable devices have dropped roughly {pct} over the past six months.
        An engineer who tested the system said it
        + [held up well under load|struggled in cold weather]
        + but [ran hot|drained the battery quickly].
        Local officials have offered [tax credits|cheap office space|training grants]
        + to lure more companies to {city}.
        {org} says it spent more than ${int:100-900} million on research last year.
        Battery life was [solid|disappointing], lasting about {int:9-30} hours in my daily use.
        The software still has rough edges: [apps occasionally crashed|notifications arrived late]
        + during my testing.
        Investors appear [unconvinced|impressed]; shares [rose|fell] {pct} in afternoon trading.
        """
    ),
    quotes=_en_lines(
        """
        We want this technology on the factory floor, not just in a demo video.
        Customers don't care about benchmarks; they care about whether it makes their day easier.
        Nobody can build this ecosystem alone, so we are opening it up.
        """
    ),
)

_EN_FINANCE = Topic(
    name="finance",
    lang="en",
    vocab={
        "org": tuple(
            a + " " + b
            for a in _words("Harbor|Summit|Granite|Beacon|Crescent|Meridian|Pioneer|Keystone")
            for b in _words("Bank|Capital|Financial|Insurance|Holdings")
        ),
        "index": _words(
            "S&P 500|Dow Jones Industrial Average|Nasdaq Composite|Russell 2000|FTSE 100"
        ),
        "sector": _words("energy|banking|semiconductor|retail|healthcare|utilities|real estate"),
        "role": _words("chief economist|portfolio manager|senior analyst|chief strategist"),
    },
    titles=_en_lines(
        """
        {index} [rises|slips] {pct} as {sector} stocks [rally|lag]
        {org} third-quarter profit [jumps|falls] {pct} on [strong loan demand|higher costs]
        {role} {person}: markets are [too optimistic|underpricing risk|due for a breather]
        Mortgage rates in {city} [hit a two-year low|climb again] as buyers [return|hold back]
        {org} to raise ${dec:1-9} billion to expand its {sector} business
        Savings rates are falling. Here is what to do with your cash
        """
    ),
    leads=_en_lines(
        """
        Stocks [edged higher|drifted lower] on {date}, with the {index} closing {pct} [up|down].
        {org} reported quarterly results on {date} that [beat|missed] Wall Street estimates.
        Readers keep asking me the same question: where should savings go when rates are falling?
        """
    ),
    body=_en_lines(
        """
        Trading volume was [light|heavy], with about {dec:8-15} billion shares changing hands.
        {sector} shares led the gains, while {sector2} stocks [lagged|gave back early gains].
        Revenue rose {pct} to ${dec:1-90} billion, driven by
        + [loan growth|fee income|overseas sales].
        Net income came in at ${dec:1-20} billion, [ahead of|slightly below] analyst forecasts.
        The central bank left its benchmark rate unchanged, but signaled
        + [patience|a possible cut early next year].
        {role} {person} wrote in a note to clients that valuations
        + [look stretched|remain reasonable].
        Home sales in {city} [rose|fell] {pct} from a year earlier, according to local realtors.
        Several regional lenders have trimmed deposit rates to around {int:2-4}.{int:10-90}%.
        Advisers say investors should [keep an emergency fund|diversify|avoid chasing hot stocks]
        + before anything else.
        Oil prices [climbed|slid] {pct}, adding to [inflation worries|pressure on airlines].
        Fund flows show [pension funds|retail investors] added ${dec:1-30} billion
        + to {sector} funds.
        Management told analysts on a conference call that [buybacks|dividend increases]
        + remain on the table.
        Consumer spending in {city} grew {pct}, the strongest pace since [spring|last year].
        My own approach is simple: [split cash into three buckets|automate monthly investing]
        + and stop checking prices daily.
        """
    ),
    quotes=_en_lines(
        """
        Short-term swings tell you very little; earnings decide where markets go over time.
        The biggest mistake investors make is buying when everyone else is excited.
        We remain cautiously optimistic, but the path will not be smooth.
        """
    ),
    endings=_en_lines(
        """
        This article is for information only and is not investment advice.
        """
    ),
)

_EN_SPORTS = Topic(
    name="sports",
    lang="en",
    vocab={
        "team": _words(
            "Harbor City FC|Northside Rovers|River Valley United|Eastport Hawks|Pine Ridge"
        )
        + _words("Lakeside Lions|Metro Comets|Granite Bay Rangers"),
        "event": _words("city marathon|youth soccer cup|half marathon|charity bike ride|swim meet"),
        "role": _words("head coach|captain|general manager|assistant coach"),
    },
    titles=_en_lines(
        """
        {team} beat {team2} {int:2-4}-{int:0-1} to [extend their winning streak|climb the table]
        {team} name {person} as new head coach
        {int:5000-30000} runners brave [the cold|the rain] at the {city} {event}
        After {int:3-6} straight losses, can {team} turn it around?
        {person} on [the defeat|the title]: [we have work to do|this belongs to everyone]
        """
    ),
    leads=_en_lines(
        """
        {team} hosted {team2} on {date} in front of {int:12000-45000} fans.
        More than {int:5000-30000} runners lined up on {date} for the {city} {event}.
        {team} confirmed on {date} that {person} will take over as head coach.
        """
    ),
    body=_en_lines(
        """
        {team} took the lead in minute {int:3-20} after a [quick counterattack|corner kick].
        {team2} [pressed higher|made two substitutions] after halftime
        + and briefly controlled the game.
        {person} sealed it in minute {int:60-89} with a [long-range strike|header].
        {team} finished with {int:45-68}% possession and {int:8-22} shots, {int:3-9} on target.
        The win moves {team} to {int:20-60} points, [third|fourth|fifth] in the standings.
        Organizers set up {int:10-40} water stations and {int:5-20} medical tents along the course.
        The winner crossed the line in 2 hours {int:5-59} minutes,
        + [a course record|well off the pace].
        Road closures around {district} caused [minor delays|few problems] for drivers.
        The {int:19-34}-year-old came through the club's academy and has [{int:3-15} goals
        + this season|earned national team call-ups].
        The general manager said the club [will stick with young players|needs a new defender].
        {team} travel to face {team3} next, a side they [beat|drew with] last season.
        Fans lingered outside the stadium long after the final whistle, [chanting|taking photos].
        As an amateur runner of {int:3-10} years, I [dreaded the last ten kilometers|finally broke
        + four hours] this time.
        """
    ),
    quotes=_en_lines(
        """
        This win belongs to every player who fought until the last minute.
        The loss is on me, and we have to respond next week.
        Young players need chances and time, and I believe in them.
        """
    ),
)

_EN_HEALTH = Topic(
    name="health",
    lang="en",
    vocab={
        "hospital": _words(
            "{city} General Hospital|{city} Children's Hospital|St. Mary's Medical Center"
        ),
        "disease": _words(
            "high blood pressure|type 2 diabetes|the flu|seasonal allergies|insomnia"
        ),
        "role": _words("cardiologist|family physician|nutritionist|public health officer"),
    },
    titles=_en_lines(
        """
        [Flu|Allergy] season arrives early in {city}: what doctors want you to know
        {role} {person}: managing {disease} starts with [daily habits|sleep|your plate]
        Do you really need [10,000 steps|eight glasses of water|eight hours of sleep]?
        + Experts weigh in
        {hospital} opens new [clinic|telehealth service] for {disease} patients
        {int:3-6} numbers on your blood test you should not ignore
        """
    ),
    leads=_en_lines(
        """
        Emergency rooms in {city} saw a {pct} jump in visits last week as temperatures dropped.
        Doctors at {hospital} say more young adults are being diagnosed with {disease}.
        I was diagnosed with {disease} at {int:29-45}, and it changed how I think about health.
        """
    ),
    body=_en_lines(
        """
        Most patients [are older adults|are children|work long office hours], {role} {person} said.
        Experts recommend [regular checkups|moderate exercise|cutting back on salt]
        + for people with {disease}.
        Health officials say only about half of adults with {disease} know they have it.
        [Chest tightness|A persistent fever|Blurred vision] should prompt a visit to a doctor.
        The hospital now offers [video follow-ups|online test results] to cut down on trips.
        County data show [flu-like illness|stomach bug] cases [rose|fell] {pct} week over week.
        Vaccination sites are open at {int:20-90} pharmacies and clinics across {city}.
        A balanced breakfast such as [oatmeal with nuts|eggs and whole-grain toast] helps
        + keep blood sugar steady.
        Research links long-term [sleep loss|sitting] to [weaker immunity|heart disease].
        Parents should aim for at least an hour of outdoor play for children each day.
        Remedies promoted on social media [rarely have evidence behind them|can delay treatment].
        Drug prices for {int:20-90} common medicines fell by an average of {pct} this year.
        What helped me most was [tracking my numbers daily|walking after dinner|cooking at home].
        """
    ),
    quotes=_en_lines(
        """
        Many chronic conditions have no early symptoms, so regular checkups matter.
        Medication is only one part; diet and exercise matter just as much.
        There are no shortcuts to a healthy lifestyle; the key is consistency.
        """
    ),
    endings=_en_lines(
        """
        This article is for general information and is not a substitute for medical advice.
        """
    ),
)

_EN_TRAVEL = Topic(
    name="travel",
    lang="en",
    vocab={
        "spot": _words("old harbor|national park|hot springs|lakeside trail|wine country|old town"),
        "food": _words("clam chowder|fish stew|ramen|barbecue|pork dumpling soup|oyster stew"),
    },
    titles=_en_lines(
        """
        {int:3-5} days in {city}: [a slow guide|what I would do again|the places locals love]
        {city}'s {spot} [draws record crowds|reopens after renovation]
        New [rail link|direct flight] cuts {city}-{city2} travel time to {int:1-4} hours
        Why [autumn|winter] is the best time to visit the {spot} near {city}
        Hotel bookings in {city} up {pct} as [fall foliage|ski] season begins
        """
    ),
    leads=_en_lines(
        """
        Visitors packed the {spot} near {city} over the weekend, officials said.
        I booked the trip to {city} on a whim, two days before leaving.
        A new [rail link|direct flight] between {city} and {city2} started service on {date}.
        """
    ),
    body=_en_lines(
        """
        Families [took photos|rented boats|queued for street food] along the {spot}.
        The park introduced [timed entry|online ticketing] and added {int:50-300} staff
        + to manage the crowds.
        We left at {int:6-9} a.m. and hiked for about two hours to reach the viewpoint.
        The local {food} is worth the wait, about ${int:8-30} a plate.
        At night the old streets are [lit by lanterns|quieter than you would expect].
        Temperatures swing widely, so [bring layers|pack waterproof shoes].
        Guesthouses nearby cost ${int:60-300} a night and [fill up on weekends|need booking early].
        The {spot} dates back more than {int:100-400} years and still has [original buildings|stone
        + bridges].
        Tourism officials plan [new walking routes|discount passes] to bring visitors in winter.
        A couple from {city2} told me [it was their second visit|they drove up for the weekend].
        Online travel platforms report bookings up {pct}, [led by young travelers|mostly families].
        Honestly, [I expected little|the trip was more tiring than planned], but the views
        + [exceeded everything|stayed with me for weeks].
        """
    ),
    quotes=_en_lines(
        """
        We want visitors to experience how people here actually live, not just take photos.
        The pace is slow here, and that is exactly the point.
        """
    ),
)

_EN_EDUCATION = Topic(
    name="education",
    lang="en",
    vocab={
        "school": _words(
            "{city} High School|{city} Community College|Lincoln Elementary|Westview Academy"
        ),
        "subject": _words("coding|robotics|civics|music|financial literacy|creative writing"),
        "role": _words("principal|superintendent|teacher|education researcher"),
    },
    titles=_en_lines(
        """
        {school} adds {subject} classes, and students are [signing up fast|split on it]
        {city} schools to hire {int:100-900} teachers amid [shortage|enrollment growth]
        {role} {person}: [homework is not the enemy|students need more sleep|teach less, better]
        Graduates in {city} [favor skilled trades|stay closer to home], survey finds
        New admissions rules in {city}: [what parents need to know|{int:3-8} key changes]
        """
    ),
    leads=_en_lines(
        """
        {city} school officials announced on {date} plans to open {int:3-12} new schools.
        {school} began offering {subject} this semester, {int:1-4} periods a week.
        After {int:8-25} years of teaching, I keep asking myself what a good class looks like.
        """
    ),
    body=_en_lines(
        """
        In class, students [work in small groups|build their own projects|present to peers].
        After-school programs now reach {pct} of public schools in {city}.
        Some parents worry that [less homework means lower scores|competition has not eased].
        {role} {person} argues that [better lesson design|fewer tests] matters more than volume.
        Under the new rules, [physical education counts more|portfolios are considered]
        + in admissions.
        The district expects {int:5-40} thousand graduates this year, [a record|up slightly].
        Employers in [clean energy|healthcare|advanced manufacturing] drew the longest lines
        + at the job fair.
        Surveys show [more than half|nearly half] of teenagers sleep fewer than {int:7-8} hours
        + a night.
        Applications are open from {month_name} {int:1-15} to {month_name} {int:16-28}.
        One student in my class [never raised her hand|failed math twice], and this term
        + [she leads the robotics team|he tutors younger kids].
        """
    ),
    quotes=_en_lines(
        """
        Education is slow work; it cannot be rushed, and it cannot wait.
        We are not chasing top scores; we want every child to find what they are good at.
        """
    ),
)

_EN_LOCAL = Topic(
    name="local",
    lang="en",
    vocab={
        "job": _words("bus driver|sanitation worker|delivery driver|crossing guard"),
        "role": _words("city council member|public works director|neighborhood organizer"),
    },
    titles=_en_lines(
        """
        {road} [reconstruction|widening] in {city} to finish by {month_name} {int:1-28}
        {city} {job} [pulls child from river|returns lost wallet|helps missing man get home]
        Cold snap: {city} temperatures to drop {int:10-25} degrees [this weekend|by Tuesday]
        {district} [market|library|pocket park] reopens after [makeover|two-year closure]
        {city} council approves [bike lanes|new bus routes] for {district}
        """
    ),
    leads=_en_lines(
        """
        Work on {road} in {city} is in its final phase, the public works department said on {date}.
        A {city} {job} is being hailed as a hero after [a rescue|an act of honesty] on {date}.
        Forecasters expect a sharp drop in temperatures across {city} over the next three days.
        """
    ),
    body=_en_lines(
        """
        The project covers about {dec:1-9} miles and cost ${dec:5-90} million,
        + including [new bike lanes|sewer upgrades].
        Crews [set up detours|adjusted bus routes] to limit the disruption.
        Residents of {district} say the changes [make a real difference|were long overdue].
        The city plans to repave {int:20-200} blocks and plant {int:300-3000} trees this year.
        He [called police right away|waited with the man until officers arrived|jumped into
        + the water without hesitating].
        The family later [sent a thank-you card|visited the depot] to thank him in person.
        Lows could reach {int:10-30} degrees, and [bridges may ice over|wind gusts may top 40 mph].
        Residents can report [potholes|broken streetlights] by calling 311.
        {role} {person2} said [more benches|a playground|extra parking] will be added next spring.
        At dusk the [market stalls open|street lights come on] and {road} fills with people.
        """
    ),
    quotes=_en_lines(
        """
        We asked residents what they wanted first, and we built the plan around that.
        Anyone would have done the same thing; I just happened to be there.
        """
    ),
)

_EN_CULTURE = Topic(
    name="culture",
    lang="en",
    vocab={
        "film": _words("The Long Harbor|Evening Wind|Letters From the South|The Seventh Spring"),
        "book": _words(
            "Where the River Bends|My Father's Garden|The Last Station|Fog Over the City"
        ),
        "exhibit": _words("Silk and Stone|A Thousand Years of Fire|River Lands"),
        "role": _words("director|novelist|critic|curator"),
    },
    titles=_en_lines(
        """
        Review: '{film}' is [a quiet triumph|beautiful but slow|hard to forget]
        {city} museum opens '{exhibit}', [{int:100-400} objects|a rare collection] on view
        What '{book}' taught me about [my father|growing up|work]
        {role} {person}: [good stories start with real life|young audiences are picky]
        """
    ),
    leads=_en_lines(
        """
        '{film}', directed by {person}, [opened in theaters|arrived on streaming] on {date}.
        The exhibition '{exhibit}' opened on {date} at the {city} Museum of Art.
        I read '{book}' slowly over {int:2-6} months, returning to some chapters again and again.
        """
    ),
    body=_en_lines(
        """
        The film follows
        + [three generations of one family|a rural teacher|two friends in a big city].
        Audiences have been [moved by the ending|divided over the pacing].
        Critics praised the [cinematography|lead performance] but found the second half
        + [slow|uneven].
        The show brings together {int:100-400} objects, [many on view for the first time|some
        + never shown abroad].
        The author writes with [plain|restrained] prose about [ordinary lives|a changing town].
        One line stayed with me: [you can never go home, and you never really leave|courage
        + is loving life after seeing it clearly].
        Box office receipts passed ${dec:1-90} million in the first {int:3-10} days.
        Admission is [free|by timed ticket], and the exhibition runs through {month_name}.
        Lead actor {person2} said [she spent months learning the dialect|he lost weight
        + for the role].
        By the last chapter it was [past midnight|raining outside], and I [could not sleep|called
        + my mother].
        """
    ),
    quotes=_en_lines(
        """
        I believe honest work always finds its audience.
        What I wanted to show is the light in ordinary people.
        """
    ),
)

EN_TOPICS: tuple[Topic, ...] = (
    _EN_TECH,
    _EN_FINANCE,
    _EN_SPORTS,
    _EN_HEALTH,
    _EN_TRAVEL,
    _EN_EDUCATION,
    _EN_LOCAL,
    _EN_CULTURE,
)

_EN_GENERIC = _en_lines(
    """
    The move has drawn attention well beyond {city}.
    Similar efforts have been tried in {city2}, with [mixed|encouraging] results.
    Not everyone is convinced, and critics say [the details matter|the timeline is too ambitious].
    Officials say the work should be completed [by the end of the year|within three years].
    """
)
_EN_QUOTE_FRAMES = _en_lines(
    """
    {person} said: "{quote}"
    {role} {person} told reporters: "{quote}"
    Asked about what comes next, {person} said: "{quote}"
    """
)
_EN_ENDINGS = _en_lines(
    """
    We will continue to follow this story.
    What do you think? Let us know in the comments.
    """
)


_RELATED: dict[str, tuple[str, ...]] = {
    "tech": ("finance",),
    "finance": ("tech",),
    "sports": ("local", "health"),
    "health": ("education", "sports"),
    "travel": ("local",),
    "education": ("local",),
    "local": ("travel", "education"),
    "culture": ("education",),
}


def topics_for(lang: str) -> tuple[Topic, ...]:
    """The topics available in ``lang`` ("zh" or "en")."""
    return ZH_TOPICS if lang == "zh" else EN_TOPICS


# --------------------------------------------------------------------------- engine

_MONTHS = _words(
    "January February March April May June July August September October November December"
)
_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{([a-z_]+?)(\d?)(?::(-?\d+)-(-?\d+))?\}")


class Filler:
    """Fills templates for one article, remembering entity choices (city, org, person…)."""

    def __init__(self, rng: random.Random, lang: str, topic: Topic, day: dt.date) -> None:
        self.rng = rng
        self.lang = lang
        self.topic = topic
        self.day = day
        self.memo: dict[str, str] = {}
        # Quotes come from the main topic only: a health article quoting a chip
        # maker reads wrong even when each sentence is fine.
        quotes = list(topic.quotes)
        rng.shuffle(quotes)
        self._quotes = quotes

    def _vocab(self, name: str) -> tuple[str, ...]:
        if name in self.topic.vocab:
            return self.topic.vocab[name]
        common = _ZH_COMMON if self.lang == "zh" else _EN_COMMON
        if name in common:
            return common[name]
        raise KeyError(f"no vocabulary for slot {{{name}}} in {self.topic.name}/{self.lang}")

    def person(self) -> str:
        """A random personal name in the article's language."""
        if self.lang == "zh":
            return self.rng.choice(_ZH_SURNAMES) + self.rng.choice(_ZH_GIVEN)
        return f"{self.rng.choice(_EN_FIRST)} {self.rng.choice(_EN_LAST)}"

    def _entity(self, name: str, suffix: str) -> str:
        key = name + suffix
        if key in self.memo:
            return self.memo[key]
        # "Another one of the same kind": avoid the values already used for siblings.
        taken = {v for k, v in self.memo.items() if k.rstrip("0123456789") == name}
        value = ""
        for _ in range(20):
            if name == "person":
                value = self.person()
            else:
                value = self.fill(self.rng.choice(self._vocab(name)))
            if value not in taken:
                break
        self.memo[key] = value
        return value

    def _slot(self, m: re.Match[str]) -> str:
        name, suffix, lo, hi = m.group(1), m.group(2), m.group(3), m.group(4)
        rng = self.rng
        if name == "int":
            return str(rng.randint(int(lo), int(hi)))
        if name == "dec":
            return f"{rng.uniform(int(lo), int(hi)):.1f}"
        if name == "pct":
            return f"{rng.uniform(0.5, 45.0):.1f}%"
        if name == "year":
            return str(self.day.year)
        if name == "month":
            return str(self.day.month)
        if name == "month_name":
            return _MONTHS[self.day.month - 1]
        if name == "date":
            # News usually reports yesterday's or today's events.
            d = self.day - dt.timedelta(days=rng.choice((0, 0, 1)))
            if self.lang == "zh":
                return f"{d.month}月{d.day}日"
            return f"{_MONTHS[d.month - 1]} {d.day}"
        if name == "quote":
            if not self._quotes:
                self._quotes = list(self.topic.quotes)
                rng.shuffle(self._quotes)
            return self.fill(self._quotes.pop())
        return self._entity(name, suffix)

    def fill(self, template: str) -> str:
        """Expand alternatives, then slots, of one template."""
        text = _ALT.sub(lambda m: self.rng.choice(m.group(1).split("|")), template)
        return _SLOT.sub(self._slot, text)


@dataclass(frozen=True)
class Article:
    """A composed article: title plus paragraphs of plain text."""

    lang: str
    topic: str
    title: str
    paragraphs: tuple[str, ...]

    @property
    def text(self) -> str:
        """Paragraphs joined the way the language's sites usually do it."""
        return _join_paragraphs(self.lang, self.paragraphs)


def _cap(text: str) -> str:
    # English templates may start with a lower-case slot ("principal Jane Doe says").
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def _join_paragraphs(lang: str, paragraphs: tuple[str, ...] | list[str]) -> str:
    return ("\n" if lang == "zh" else "\n\n").join(paragraphs)


def _sentence_join(lang: str, sentences: list[str]) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


_PLACES = ("city", "district", "road", "community")


def _fill_from(source: list[tuple[Filler, str]], main: Filler, borrowed: Filler) -> str:
    """Fill the next template of ``source``, keeping places in sync between fillers."""
    filler, template = source.pop()
    for key, value in main.memo.items():
        if key.startswith(_PLACES):
            borrowed.memo.setdefault(key, value)
    text = filler.fill(template)
    for key, value in borrowed.memo.items():
        if key.startswith(_PLACES):
            main.memo.setdefault(key, value)
    return _cap(text)


def compose_title(rng: random.Random, lang: str, topic: Topic, day: dt.date) -> str:
    """A fresh title for ``topic`` (used for re-titled reposts too)."""
    return _cap(Filler(rng, lang, topic, day).fill(rng.choice(topic.titles)))


def _target_length(rng: random.Random) -> int:
    # Most news items are short to medium; a minority are long features.
    bucket = rng.random()
    if bucket < 0.35:
        return rng.randint(300, 600)
    if bucket < 0.85:
        return rng.randint(600, 1100)
    return rng.randint(1100, 2400)


def compose_article(
    rng: random.Random,
    lang: str,
    day: dt.date,
    topic: Topic | None = None,
    min_chars: int = 300,
    max_chars: int = 2500,
    target: int | None = None,
) -> Article:
    """Compose one article of ``min_chars``..``max_chars`` characters (text only, no title).

    The lead, body sentences (without repetition), an optional quote and an
    ending are filled through one ``Filler`` so entities stay consistent.
    Long articles borrow sentences from a second topic, the way features drift
    from, say, local news into travel.
    """
    topics = topics_for(lang)
    topic = topic or rng.choice(topics)
    # Long pieces drift into a *related* topic once the main bank runs dry.
    extra_name = rng.choice(_RELATED[topic.name])
    extra = next(t for t in topics if t.name == extra_name)
    filler = Filler(rng, lang, topic, day)
    # Borrowed sentences use the related topic's own vocabulary (a "校长" must not
    # turn up in a street-works sentence) but share the article's places.
    borrowed = Filler(rng, lang, extra, day)
    borrowed.memo = {k: v for k, v in filler.memo.items() if k.startswith(_PLACES)}
    title = _cap(filler.fill(rng.choice(topic.titles)))
    goal = min(max(target or _target_length(rng), min_chars), max_chars)

    pool = [(filler, t) for t in topic.body]
    rng.shuffle(pool)
    spare = [(borrowed, t) for t in extra.body]
    spare += [(filler, t) for t in (_ZH_GENERIC if lang == "zh" else _EN_GENERIC)]
    rng.shuffle(spare)
    frames = _ZH_QUOTE_FRAMES if lang == "zh" else _EN_QUOTE_FRAMES
    endings = list(topic.endings) + list(_ZH_ENDINGS if lang == "zh" else _EN_ENDINGS)

    paragraphs: list[str] = [_cap(filler.fill(rng.choice(topic.leads)))]
    quote_at = rng.randint(1, 4) if rng.random() < 0.6 else -1
    ending = _cap(filler.fill(rng.choice(endings))) if rng.random() < 0.5 else ""
    gap = 1 if lang == "zh" else 2  # paragraph separator length
    size = len(paragraphs[0]) + (len(ending) + gap if ending else 0)
    while size < goal and (pool or spare):
        if len(paragraphs) == quote_at:
            para = _cap(filler.fill(rng.choice(frames)))
        else:
            sentences: list[str] = []
            for _ in range(rng.randint(2, 4)):
                source = pool if pool else spare
                if not source:
                    break
                sentences.append(_fill_from(source, filler, borrowed))
            para = _sentence_join(lang, sentences)
        if not para:
            break
        if size + gap + len(para) > max_chars:
            break
        paragraphs.append(para)
        size += gap + len(para)
    if ending:
        paragraphs.append(ending)
    # Top up a too-short article sentence by sentence (rare: tiny targets).
    while len(_join_paragraphs(lang, paragraphs)) < min_chars and (pool or spare):
        source = pool if pool else spare
        paragraphs.insert(-1 if ending else len(paragraphs), _fill_from(source, filler, borrowed))
    return Article(lang=lang, topic=topic.name, title=title, paragraphs=tuple(paragraphs))


# --------------------------------------------------------------------------- notices

# Notice subjects: each a few sentences specific to the subject, so two notices
# on different subjects share little wording even under the same generic title.
_ZH_NOTICES: tuple[tuple[str, ...], ...] = (
    _lines(
        """
        因{road}供水管网改造施工，{month}月{int:10-28}日8:00至20:00，{district}部分区域将暂停供水。
        受影响区域包括{road}沿线、{community}及周边商铺，恢复供水初期水质可能略有浑浊。
        请广大用户提前做好储水准备，关好水龙头，由此带来的不便敬请谅解。
        """
    ),
    _lines(
        """
        为保障冬季用电安全，供电公司将对{district}10千伏线路进行停电检修。
        停电时间为{month}月{int:10-28}日上午9时至下午5时，期间电梯、门禁等设备将无法使用。
        如遇恶劣天气，检修工作将顺延，具体时间另行通知。
        """
    ),
    _lines(
        """
        根据上级有关安排，结合本单位工作实际，现将元旦假期安排通知如下。
        {year}年1月1日放假，共1天，假期期间请各部门安排好值班人员。
        节前各部门要开展一次安全检查，重点检查用电、消防和门窗关闭情况。
        """
    ),
    _lines(
        """
        为进一步提升系统稳定性，本平台定于{month}月{int:10-28}日凌晨0:00至6:00进行停机维护。
        维护期间网站及手机客户端将暂停访问，充值、提现等业务同步暂停。
        维护完成后服务将自动恢复，已提交的订单不受影响，感谢您的理解与支持。
        """
    ),
    _lines(
        """
        因业务发展需要，我单位现面向社会公开招聘工作人员{int:3-20}名。
        应聘人员须具有全日制本科及以上学历，年龄在35周岁以下，身体健康。
        报名时间截至{month}月{int:10-28}日，请将简历发送至人事部邮箱，合则约见。
        """
    ),
    _lines(
        """
        为切实做好冬季消防安全工作，物业服务中心将于本周对各楼栋开展消防设施检查。
        请各位业主清理楼道内堆放的杂物，严禁在楼道内停放电动车或为电动车充电。
        检查期间如需入户，工作人员将佩戴工作证，请业主予以配合。
        """
    ),
    _lines(
        """
        经研究决定，定于{month}月{int:10-28}日下午2:30在三楼会议室召开年度工作总结会议。
        请各科室负责人准备书面材料，发言时间控制在10分钟以内。
        参会人员请提前10分钟到场签到，无特殊情况不得请假。
        """
    ),
    _lines(
        """
        经个人申报、部门推荐和评审委员会评议，拟确定以下{int:5-15}名同志为年度优秀员工。
        现予以公示，公示期为5个工作日，自{month}月{int:10-20}日起至{month}月{int:21-28}日止。
        公示期间如有异议，请以书面形式向工会反映，反映情况应实事求是。
        """
    ),
    _lines(
        """
        受原材料成本持续上涨影响，本店部分商品价格将自{month}月{int:10-28}日起作出调整。
        已预订的订单仍按原价执行，会员积分规则保持不变。
        感谢广大顾客长期以来的信任与支持，我们将继续努力提供优质的商品和服务。
        """
    ),
    _lines(
        """
        因办公场所调整，本中心将于{month}月{int:10-28}日起迁至{road}{int:10-300}号新址办公。
        搬迁期间{int:2-3}个工作日暂停对外受理业务，线上业务照常办理。
        新址交通便利，可乘坐{int:2-90}路公交车到达，咨询电话保持不变。
        """
    ),
)
_EN_NOTICES: tuple[tuple[str, ...], ...] = (
    _en_lines(
        """
        {road} will be closed between {district} and the bridge from {month_name} {int:10-28}
        + for water main repairs.
        Detour signs will be posted, and local access will be maintained for residents.
        We apologize for the inconvenience and thank you for your patience.
        """
    ),
    _en_lines(
        """
        Our online banking service will be unavailable from midnight to 6 a.m. on
        + {month_name} {int:10-28} for scheduled maintenance.
        Card payments and cash withdrawals will not be affected during this window.
        """
    ),
    _en_lines(
        """
        Please be advised that the office will close at noon on {month_name} {int:10-28}
        + for the annual staff meeting.
        Urgent requests can be sent by email and will be answered the next business day.
        """
    ),
    _en_lines(
        """
        The company today announced a voluntary recall of {int:2-9} thousand space heaters
        + because of a wiring fault.
        Customers should stop using the product immediately and contact the store for a full refund.
        """
    ),
    _en_lines(
        """
        We are pleased to announce that {person} has been appointed chief financial officer,
        + effective {month_name} {int:1-28}.
        {person} joins from a regional bank, where they led the treasury team for eight years.
        """
    ),
    _en_lines(
        """
        The public library will extend its opening hours until 9 p.m. on weekdays
        + during exam season.
        Study rooms can be reserved up to three days in advance at the front desk.
        """
    ),
)


def compose_notice(rng: random.Random, lang: str, day: dt.date, subject: int) -> str:
    """The body of a short official notice about ``subject`` (index into the bank)."""
    bank = _ZH_NOTICES if lang == "zh" else _EN_NOTICES
    topics = topics_for(lang)
    filler = Filler(rng, lang, rng.choice(topics), day)
    sentences = [filler.fill(t) for t in bank[subject % len(bank)]]
    if lang == "zh":
        org = filler.fill(
            rng.choice(_words("{district}{road}街道办事处 {city}市自来水公司 物业服务中心"))
        )
        body = "".join(sentences) + ("特此通知。" if rng.random() < 0.5 else "")
        return f"{body}\n{org}\n{day.year}年{day.month}月{day.day}日"
    return " ".join(sentences) + f"\n\n{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def notice_subjects(lang: str) -> int:
    """How many different notice subjects the bank holds for ``lang``."""
    return len(_ZH_NOTICES if lang == "zh" else _EN_NOTICES)


# --------------------------------------------------------------------------- short texts

_ZH_POEM_LINES = _words(
    """
    秋风吹落满庭霜 孤灯照影夜未央 故人一别三千里 唯有明月寄思量 山色空蒙雨亦奇
    小桥流水绕人家 春来江水绿如蓝 竹影摇窗月半斜 晚钟声里归舟远 一蓑烟雨任平生
    长亭外古道边 柳絮飞时花满城 远山如黛水如烟 寒梅数点映窗前 雁字回时月满楼
    """
)
_ZH_SHORT_NOTES = _lines(
    """
    今日电梯例行保养，上午九点至十一点暂停使用，请走楼梯，注意安全。
    本店周日店休一天，周一照常营业，给您带来不便敬请谅解。
    小区东门道路施工，车辆请从北门出入，预计三天完工。
    失物招领：昨晚在篮球场捡到黑色双肩包一个，请失主到物业认领。
    明早六点起停水两小时，请各位邻居提前储水。
    图书馆三楼自习室本周末开放至晚上十点，欢迎同学们前来学习。
    周六下午在社区广场举办旧物交换活动，欢迎大家带上闲置物品参加。
    快递柜故障已报修，今天的包裹暂放门卫室，请凭取件码领取。
    """
)
_EN_SHORT = _en_lines(
    """
    The pool is closed today for cleaning and will reopen tomorrow at 7 a.m.
    Lost: a gray cat named Pepper near Elm Street. Please call if you see her.
    Rain on the tin roof, the kettle starts to sing, and nobody is home.
    Farmers market moves indoors this Saturday because of the storm.
    Autumn light through leaves, a bicycle bell rings out, the river keeps its time.
    Choir practice is canceled this week. See you all next Thursday.
    """
)


def compose_short_text(rng: random.Random, lang: str) -> tuple[str, str]:
    """A (title, text) pair of a short poem or notice, 20-80 characters of text."""
    if lang == "zh":
        if rng.random() < 0.5:
            lines = rng.sample(_ZH_POEM_LINES, 4)
            text = f"{lines[0]}，{lines[1]}。\n{lines[2]}，{lines[3]}。"
            return rng.choice(("无题", "夜读有感", "小诗一首", "随笔")), text
        return rng.choice(("温馨提示", "通知", "告示")), rng.choice(_ZH_SHORT_NOTES)
    text = rng.choice(_EN_SHORT)
    return rng.choice(("Untitled", "Note", "Notice")), text
